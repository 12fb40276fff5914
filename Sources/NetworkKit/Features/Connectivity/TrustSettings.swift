/// Which servers a transport trusts, and how it proves who it is (placeholder: filled in by the
/// TLS work).
public struct TrustSettings: Sendable {
    /// The system's trust.
    public init() {}
}
