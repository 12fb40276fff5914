/// What a service applies to every request that a request can leave out, each on its own
/// (``AnyRequest/skippedServiceDefaults``): common headers and parameters, the signer, the
/// envelope, the response validation. The rest of the service's setup still applies.
public struct ServiceDefaults: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int

    /// A set of steps from raw bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// ``ServiceConfiguration/commonHeaderFields``.
    public static let commonHeaderFields = ServiceDefaults(rawValue: 1 << 0)
    /// ``ServiceConfiguration/commonParameters``.
    public static let commonParameters = ServiceDefaults(rawValue: 1 << 1)
    /// ``ServiceConfiguration/signer``.
    public static let signer = ServiceDefaults(rawValue: 1 << 2)
    /// ``ServiceConfiguration/envelope``: the request's parser reads the body as it is.
    public static let envelope = ServiceDefaults(rawValue: 1 << 3)
    /// ``ServiceConfiguration/responseValidation``: the request's answers are checked by its own
    /// acceptable status codes and its parser alone.
    public static let responseValidation = ServiceDefaults(rawValue: 1 << 4)
}
