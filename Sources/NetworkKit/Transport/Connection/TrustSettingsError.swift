/// Why a trust setting cannot be used: a pin that is not a SHA-256 hash, PEM text that does not
/// parse. Transports report it inside `NetworkError.connection` when they are made.
public enum TrustSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `text` is not a pin: `reason` says what is wrong with it.
    case malformedPin(String, reason: String)
    /// The PEM text of `source` (a file's path or "PEM data") cannot be used: `reason` says why.
    case unreadablePEM(source: String, reason: String)

    /// One line naming the setting and what is wrong.
    public var description: String {
        switch self {
        case .malformedPin(let text, let reason):
            return "malformed public key pin \"\(text)\": \(reason)"
        case .unreadablePEM(let source, let reason):
            return "\(source) cannot be used: \(reason)"
        }
    }
}
