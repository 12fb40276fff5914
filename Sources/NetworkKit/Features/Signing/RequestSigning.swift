import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Signs every request of a service as it will be sent (AIFNetworking's signature step): it
/// sees the final method, URL, headers and body — after parameters, URL filters, common headers
/// and every interceptor — and adds a header or a query parameter.
///
/// ```swift
/// struct HMACSigner: RequestSigning {
///     let key: SymmetricKey
///     func sign(_ request: URLRequest) throws -> URLRequest {
///         var signed = request
///         let mac = HMAC<SHA256>.authenticationCode(for: request.signingContent, using: key)
///         signed.setValue(Data(mac).map { String(format: "%02x", $0) }.joined(), forHTTPHeaderField: "X-Signature")
///         return signed
///     }
/// }
/// configuration.signer = HMACSigner(key: SymmetricKey(data: secret))
/// ```
public protocol RequestSigning: Sendable {
    /// The signed request; throwing fails the request with `NetworkError.adaptationFailed`, and
    /// nothing is sent.
    func sign(_ request: URLRequest) throws -> URLRequest
}

extension URLRequest {
    /// What signers usually sign: `METHOD\npath?query\nbody`, as bytes.
    public var signingContent: Data {
        let path = url.map { $0.path + ($0.query.map { "?" + $0 } ?? "") } ?? ""
        var content = Data("\(httpMethod ?? "GET")\n\(path)\n".utf8)
        content.append(httpBody ?? Data())
        return content
    }

    /// This request with `name=value` added to its query, escaped as RFC 3986 asks: for signers
    /// that sign with a parameter instead of a header.
    public func addingQueryParameter(_ name: String, _ value: String) throws -> URLRequest {
        guard let url else { throw NetworkError.invalidRequest("the request has no URL to add \(name) to") }
        var copy = self
        copy.url = try URLRequestBuilder.appendingQuery([name: .string(value)], to: url, keepingExisting: false)
        return copy
    }
}
