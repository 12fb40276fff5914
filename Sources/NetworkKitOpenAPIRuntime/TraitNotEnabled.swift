#if !OpenAPIRuntime
/// The `ClientTransport` for swift-openapi-generator's clients exists only when the package that
/// depends on NetworkKit enables its `OpenAPIRuntime` trait, which also brings swift-openapi-runtime
/// and swift-http-types into that package's graph: `.package(url: …, traits: ["OpenAPIRuntime"])`.
/// Without the trait this module holds only this marker, so that a use of
/// `ServiceClientTransport` fails to compile with a message naming the trait.
@available(*, unavailable, message: "ServiceClientTransport needs NetworkKit's OpenAPIRuntime trait: add traits: [\"OpenAPIRuntime\"] to NetworkKit's .package line (in its own folder: --enable-all-traits)")
public struct ServiceClientTransport {
    /// Unavailable with its type: the transport needs the `OpenAPIRuntime` trait.
    public init() {}
}
#endif
