import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Signs every request of a service as it will be sent (AIFNetworking's signature step): it
/// sees the final method, URL, header fields and body — after parameters, URL filters, common
/// headers and every interceptor — and adds a header field or a query parameter.
///
/// ```swift
/// struct HMACSigner: RequestSigning {
///     let key: SymmetricKey
///     func sign(_ request: OutgoingRequest) throws -> OutgoingRequest {
///         var mac = HMAC<SHA256>(key: key)
///         try request.signingContent { mac.update(data: $0) }
///         var signed = request
///         signed.head.headerFields[HTTPField.Name("X-Signature")!] =
///             Data(mac.finalize()).map { String(format: "%02x", $0) }.joined()
///         return signed
///     }
/// }
/// configuration.signer = HMACSigner(key: SymmetricKey(data: secret))
/// ```
///
/// ``OutgoingRequest/signingContent(_:)`` hands over the body a piece at a time, from memory or
/// from the file it is sent from (``RequestBody/file(_:contentType:)``, a large multipart form),
/// so a signer hashes a body of any size in flat memory.
public protocol RequestSigning: Sendable {
    /// The signed request; throwing fails the request with `NetworkError.adaptationFailed`, and
    /// nothing is sent.
    func sign(_ request: OutgoingRequest) throws -> OutgoingRequest

    /// The signed request, for a signer whose keys depend on the environment: `environment` is
    /// the one active when the request started (see ``ServiceEnvironment/values``). The kit calls
    /// this one; by default it calls ``sign(_:)``.
    func sign(_ request: OutgoingRequest, environment: ServiceEnvironment) throws -> OutgoingRequest
}

extension RequestSigning {
    /// Calls ``sign(_:)``: signers with one key for every environment need only that one.
    public func sign(_ request: OutgoingRequest, environment: ServiceEnvironment) throws -> OutgoingRequest {
        try sign(request)
    }
}

extension OutgoingRequest {
    /// What signers usually sign: `METHOD\npath?query\nbody`, as bytes, with the body read
    /// whole (from its file too, when it is sent from disk).
    /// - Throws: the file system's error when the body's file cannot be read;
    ///   `NetworkError.invalidRequest` for a streamed body (``Body/stream(_:)``), which no one can
    ///   read before it is sent.
    public func signingContent() throws -> Data {
        var content = Data()
        try signingContent { content.append($0) }
        return content
    }

    /// `METHOD\npath?query\nbody` in pieces, with a body sent from disk read 64 KiB at a time.
    /// - Throws: the file system's error when the body's file cannot be read,
    ///   `NetworkError.invalidRequest` for a streamed body, or what `piece` throws.
    public func signingContent(_ piece: (Data) throws -> Void) throws {
        try piece(Data("\(head.method.rawValue)\n\(head.path ?? "")\n".utf8))
        switch body {
        case .none:
            break
        case .data(let data):
            if !data.isEmpty { try piece(data) }
        case .file(let file):
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            while let block = try handle.read(upToCount: 64 * 1024), !block.isEmpty {
                try piece(block)
            }
        case .stream:
            throw NetworkError.invalidRequest("a streamed body (RequestBodyStream) is made as it is sent and cannot be signed: send it from memory or a file")
        }
    }

    /// This request with `name=value` added to its query, escaped as RFC 3986 asks: for signers
    /// that sign with a parameter instead of a header field.
    /// - Throws: `NetworkError.invalidRequest` when the head makes no URL, `.invalidURL` when
    ///   the URL with the parameter cannot be sent.
    public func addingQueryParameter(_ name: String, _ value: String) throws -> OutgoingRequest {
        guard let url else { throw NetworkError.invalidRequest("the request has no URL to add \(name) to") }
        var copy = self
        try copy.setURL(OutgoingRequestBuilder.appendingQuery([name: .string(value)], to: url, keepingExisting: false))
        return copy
    }
}
