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
///
/// A body sent from disk (``RequestBody/file(_:contentType:)``, a large multipart form) is not in
/// `httpBody`: a signer that signs bodies implements ``sign(_:bodyFile:)`` too and reads it with
/// `URLRequest.signingContent(bodyFile:_:)`, a piece at a time:
///
/// ```swift
/// func sign(_ request: URLRequest) throws -> URLRequest { try sign(request, bodyFile: nil) }
/// func sign(_ request: URLRequest, bodyFile: URL?) throws -> URLRequest {
///     var mac = HMAC<SHA256>(key: key)
///     try request.signingContent(bodyFile: bodyFile) { mac.update(data: $0) }
///     var signed = request
///     signed.setValue(Data(mac.finalize()).map { String(format: "%02x", $0) }.joined(), forHTTPHeaderField: "X-Signature")
///     return signed
/// }
/// ```
public protocol RequestSigning: Sendable {
    /// The signed request; throwing fails the request with `NetworkError.adaptationFailed`, and
    /// nothing is sent.
    func sign(_ request: URLRequest) throws -> URLRequest

    /// The signed request, whose body is sent from `bodyFile` when that is not nil (it is then
    /// not in `httpBody`; with ``AnyRequest/bodyEncoding`` it is the compressed file, as sent).
    /// By default it calls ``sign(_:)``.
    func sign(_ request: URLRequest, bodyFile: URL?) throws -> URLRequest

    /// The signed request, for a signer whose keys depend on the environment: `environment` is
    /// the one active when the request started (see ``ServiceEnvironment/values``). The kit calls
    /// this one; by default it calls ``sign(_:bodyFile:)``.
    func sign(_ request: URLRequest, bodyFile: URL?, environment: ServiceEnvironment) throws -> URLRequest
}

extension RequestSigning {
    /// Calls ``sign(_:bodyFile:)``: signers with one key for every environment need only that one.
    public func sign(_ request: URLRequest, bodyFile: URL?, environment: ServiceEnvironment) throws -> URLRequest {
        try sign(request, bodyFile: bodyFile)
    }

    /// Calls ``sign(_:)``: signers that do not sign bodies from disk need only that one.
    public func sign(_ request: URLRequest, bodyFile: URL?) throws -> URLRequest {
        try sign(request)
    }
}

extension URLRequest {
    /// What signers usually sign: `METHOD\npath?query\nbody`, as bytes.
    public var signingContent: Data {
        var content = signingHead
        content.append(httpBody ?? Data())
        return content
    }

    /// ``signingContent`` in pieces, with the body read from `bodyFile` (64 KiB at a time) when
    /// it is sent from disk, so a signer can hash a body of any size in flat memory.
    /// - Throws: the file system's error when `bodyFile` cannot be read, or what `piece` throws.
    public func signingContent(bodyFile: URL?, _ piece: (Data) throws -> Void) throws {
        try piece(signingHead)
        guard let bodyFile else {
            if let httpBody, !httpBody.isEmpty { try piece(httpBody) }
            return
        }
        let handle = try FileHandle(forReadingFrom: bodyFile)
        defer { try? handle.close() }
        while let block = try handle.read(upToCount: 64 * 1024), !block.isEmpty {
            try piece(block)
        }
    }

    /// `METHOD\npath?query\n`.
    private var signingHead: Data {
        let path = url.map { $0.path + ($0.query.map { "?" + $0 } ?? "") } ?? ""
        return Data("\(httpMethod ?? "GET")\n\(path)\n".utf8)
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
