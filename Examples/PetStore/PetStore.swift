// An excerpt of a public API in the Swagger Petstore's style (OpenAPI 3.0, YAML): the
// NetworkKitOpenAPI plugin generates `SwaggerPetstore` from openapi.yaml. This target only has
// to compile; ExampleTests builds requests with it.
