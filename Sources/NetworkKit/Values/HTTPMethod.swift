/// The HTTP methods a `Request` can use.
public enum HTTPMethod: String, Sendable, CaseIterable {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
    case head = "HEAD"

    /// True for methods whose parameters go in the query string by default.
    var encodesParametersInQuery: Bool {
        self == .get || self == .head || self == .delete
    }

    /// True for methods that may be sent twice without harm (RFC 9110 §9.2.2): all but POST and PATCH.
    public var isIdempotent: Bool {
        self != .post && self != .patch
    }
}
