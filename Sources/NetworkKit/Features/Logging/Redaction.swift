import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which secrets logs and cURL commands hide: header values and query or form parameters by
/// name (names compared without regard to case). Hidden values read `<redacted>`.
public struct Redaction: Sendable {
    /// Header names whose values are hidden.
    public var headers: Set<String>
    /// Query and form parameter names whose values are hidden.
    public var parameters: Set<String>

    /// The headers that carry credentials, hidden by default.
    public static let defaultHeaders: Set<String> = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]
    /// Parameter names that usually carry secrets, hidden by default.
    public static let defaultParameters: Set<String> = ["password", "token", "access_token", "refresh_token", "secret"]

    /// What is hidden when nothing else is said.
    public static let standard = Redaction()
    /// Hides nothing.
    public static let none = Redaction(headers: [], parameters: [])

    /// Creates a redaction; pass extra names with the defaults, e.g. `Redaction.defaultHeaders.union(["X-Api-Key"])`.
    public init(headers: Set<String> = Redaction.defaultHeaders, parameters: Set<String> = Redaction.defaultParameters) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.parameters = Set(parameters.map { $0.lowercased() })
    }

    /// What a hidden value reads.
    package static let placeholder = "<redacted>"

    /// `value`, or the placeholder when header `name` is secret.
    public func header(_ name: String, _ value: String) -> String {
        headers.contains(name.lowercased()) ? Self.placeholder : value
    }

    /// `value`, or the placeholder when parameter `name` is secret.
    func parameter(_ name: String, _ value: String) -> String {
        parameters.contains(name.lowercased()) ? Self.placeholder : value
    }

    /// `url` with the values of secret query parameters replaced.
    public func url(_ url: URL?) -> String {
        guard let url else { return "-" }
        let text = url.absoluteString
        guard !parameters.isEmpty, let mark = text.firstIndex(of: "?") else { return text }
        let queryStart = text.index(after: mark)
        let fragment = text[queryStart...].firstIndex(of: "#") ?? text.endIndex
        return String(text[..<queryStart]) + form(String(text[queryStart..<fragment])) + String(text[fragment...])
    }

    /// A `name=value&…` string with the values of secret parameters replaced.
    public func form(_ encoded: String) -> String {
        guard !parameters.isEmpty else { return encoded }
        return encoded.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = (parts.first.map(String.init) ?? "").removingPercentEncoding ?? ""
            guard parts.count == 2 else { return String(pair) }
            return parts[0] + "=" + parameter(name, String(parts[1]))
        }.joined(separator: "&")
    }

    /// `Name: value` lines of `fields` in their order, one for each field, secrets hidden.
    public func headerLines(_ fields: HTTPFields) -> [String] {
        fields.map { "\($0.name.rawName): \(header($0.name.rawName, $0.value))" }
    }
}
