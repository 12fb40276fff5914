// The fixture server's API, generated at build time by the NetworkKitOpenAPI plugin from
// openapi.yaml and networkkit-openapi.yaml in this folder (see `FixtureAPI`). The tests call it
// end to end against the fixture server, and `nk demo` shows it.
