import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Makes the HAR entry of one exchange, secrets hidden as `redaction` says.
struct HAREntryBuilder: Sendable {
    let redaction: Redaction
    let bodyLimit: Int

    /// The entry of an exchange that sent `request` with `requestBody` (``requestBody(_:)``).
    func entry(request: OutgoingRequest, requestBody: (data: Data?, size: Int)?, startedAt: Date, waited: Duration,
               received: Duration, head: ResponseHead?, body: Data, bodyBytes: Int, inflates: Bool,
               failure: NetworkError?) -> HARArchive.Entry {
        let wait = waited.inMilliseconds, receive = received.inMilliseconds
        var entry = HARArchive.Entry(
            startedDateTime: startedAt.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
            time: wait + receive,
            request: harRequest(request, body: requestBody, version: head?.httpVersion),
            response: head.map { harResponse($0, body: body, bodyBytes: bodyBytes, inflates: inflates) } ?? Self.noResponse,
            cache: HARArchive.Cache(),
            timings: HARArchive.Timings(send: 0, wait: wait, receive: receive))
        if let failure {
            // A transfer the kit stopped once it had what it needed is not a failure of the exchange.
            var stoppedAfterHead = head != nil
            if case .cancelled = failure {} else { stoppedAfterHead = false }
            if !stoppedAfterHead { entry.error = failure.description }
        }
        return entry
    }

    /// The response of an exchange that got none, as browsers write it.
    static let noResponse = HARArchive.Response(status: 0, statusText: "", httpVersion: "", cookies: [], headers: [],
                                                content: HARArchive.Content(size: 0, mimeType: "x-unknown"),
                                                redirectURL: "", headersSize: -1, bodySize: -1)

    private func harRequest(_ request: OutgoingRequest, body: (data: Data?, size: Int)?, version: HTTPVersion?) -> HARArchive.Request {
        let fields = request.head.headerFields
        let url = request.url
        let query = url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems } ?? []
        var postData: HARArchive.PostData?
        if let body {
            let mimeType = fields[.contentType] ?? "application/octet-stream"
            postData = postDataOf(body.data, mimeType: mimeType, size: body.size)
        }
        return HARArchive.Request(
            method: request.head.method.rawValue, url: redaction.url(url), httpVersion: version?.description ?? "",
            cookies: [], headers: headers(fields),
            queryString: query.map { HARArchive.NameValue(name: $0.name, value: redaction.parameter($0.name, $0.value ?? "")) },
            postData: postData, headersSize: -1, bodySize: body?.size ?? 0)
    }

    /// The request's body and its size: in memory, or read from its file when it fits the limit.
    /// A streamed body is made as it is sent: its bytes are not recorded, its size only when it
    /// was declared (-1 otherwise, as HAR writes an unknown size).
    func requestBody(_ request: OutgoingRequest) -> (data: Data?, size: Int)? {
        if let body = request.bodyData { return (body.count <= bodyLimit ? body : nil, body.count) }
        if let stream = request.bodyStream { return (nil, stream.length.map { Int(clamping: $0) } ?? -1) }
        guard let bodyFile = request.bodyFile else { return nil }
        let size = (try? FileManager.default.attributesOfItem(atPath: bodyFile.path)[.size] as? Int) ?? 0
        return (size <= bodyLimit ? try? Data(contentsOf: bodyFile) : nil, size)
    }

    private func postDataOf(_ data: Data?, mimeType: String, size: Int) -> HARArchive.PostData {
        guard let data else { return HARArchive.PostData(mimeType: mimeType, text: "", params: []) }
        let isForm = mimeType.lowercased().hasPrefix("application/x-www-form-urlencoded")
        if let text = Self.text(of: data, mimeType: mimeType) {
            return HARArchive.PostData(mimeType: mimeType, text: isForm ? redaction.form(text) : text, params: [])
        }
        return HARArchive.PostData(mimeType: mimeType, text: data.base64EncodedString(), params: [], encoding: "base64")
    }

    private func harResponse(_ head: ResponseHead, body: Data, bodyBytes: Int, inflates: Bool) -> HARArchive.Response {
        let mimeType = head.headerFields[.contentType] ?? "x-unknown"
        var content = HARArchive.Content(size: bodyBytes, mimeType: mimeType)
        var decoded: Data? = bodyBytes <= bodyLimit ? body : nil
        if inflates, let coded = decoded, let coding = head.contentCoding {
            if let inflated = try? Decompressor.inflate(coded, coding: coding, limit: bodyLimit) {
                decoded = inflated
                content.size = inflated.count
                content.compression = inflated.count - coded.count
            } else {
                decoded = nil
                content.comment = "the \(coding.rawValue) body could not be decoded within \(bodyLimit) bytes"
            }
        }
        if let decoded {
            if let text = Self.text(of: decoded, mimeType: mimeType) {
                content.text = text
            } else {
                content.text = decoded.base64EncodedString()
                content.encoding = "base64"
            }
        } else if content.comment == nil {
            content.comment = "body not recorded: over \(bodyLimit) bytes"
        }
        return HARArchive.Response(
            status: head.status.code, statusText: HTTPURLResponse.localizedString(forStatusCode: head.status.code).capitalized,
            httpVersion: head.httpVersion?.description ?? "", cookies: [], headers: headers(head.headerFields), content: content,
            redirectURL: head.headerFields[.location] ?? "", headersSize: -1, bodySize: bodyBytes)
    }

    /// `fields` in their order, one entry for each field, secrets hidden.
    private func headers(_ fields: HTTPFields) -> [HARArchive.NameValue] {
        fields.map { HARArchive.NameValue(name: $0.name.rawName, value: redaction.header($0.name.rawName, $0.value)) }
    }

    /// `data` as text, when its media type is textual and it is UTF-8.
    static func text(of data: Data, mimeType: String) -> String? {
        let type = mimeType.lowercased()
        let textual = type.hasPrefix("text/") || type.contains("json") || type.contains("xml") || type.contains("javascript")
            || type.hasPrefix("application/x-www-form-urlencoded") || type.contains("event-stream")
        guard textual || data.isEmpty else { return nil }
        return String(validating: data, as: UTF8.self)
    }
}

extension Duration {
    /// The duration in milliseconds.
    fileprivate var inMilliseconds: Double { inSeconds * 1_000 }
}
