// Datadog's API v2 (see ../../third-party): the NetworkKitOpenAPI plugin generates
// `DatadogAPIV2Collection` from openapi.yaml, split across files. DatadogTests builds requests
// with it.
