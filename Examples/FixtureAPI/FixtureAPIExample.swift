// The fixture server's API: the NetworkKitOpenAPI plugin generates `FixtureAPI` from openapi.yaml
// and networkkit-openapi.yaml in this folder at build time. NetworkKit's own tests and `nk demo`
// use a copy of the generated file (Sources/FixtureAPI), which its tests keep equal to it.
