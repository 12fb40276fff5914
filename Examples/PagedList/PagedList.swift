// An excerpt of paged list APIs (OpenAPI 3.1, JSON): the NetworkKitOpenAPI plugin generates
// `IssueTracker` from openapi.json. This target only has to compile; ExampleTests
// builds requests with it.
