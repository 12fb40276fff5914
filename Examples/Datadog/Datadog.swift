// Datadog's API v2 (see ../third-party/datadog): the NetworkKitOpenAPI plugin generates
// `DatadogApiV2Collection` from openapi.yaml, which scripts/test-examples unpacks here, split
// across files. DatadogTests builds requests with it and runs some against the fixture server.
