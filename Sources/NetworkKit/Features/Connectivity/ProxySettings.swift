/// The proxy a transport sends requests through (placeholder: filled in by the proxy work).
public enum ProxySettings: Sendable {
    /// Straight to the server.
    case none
}
