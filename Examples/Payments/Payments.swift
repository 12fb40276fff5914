// An excerpt of a payments API with `oneOf` (OpenAPI 3.1, YAML): the NetworkKitOpenAPI plugin
// generates `Payments` from openapi.yaml. This target only has to compile;
// ExampleTests decodes its models.
