import Foundation
import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StubTransport {
    /// A stub that answers from the HAR file at `url`, as ``answer(har:matchingBodies:)`` says.
    ///
    ///     let stub = try StubTransport(har: Bundle.module.url(forResource: "checkout", withExtension: "har")!)
    ///     let service = Service(configuration: configuration, transport: stub)
    public convenience init(har url: URL, matchingBodies: Bool = false,
                            clock: any Clock<Duration> = ContinuousClock()) throws(HARFileError) {
        self.init(clock: clock)
        try answer(har: url, matchingBodies: matchingBodies)
    }

    /// Answers each request with the entry of the HAR file at `url` (one NetworkKit's `HARRecorder`
    /// wrote, or a browser's or mitmproxy's) that matches it: the same method and URL (scheme and
    /// host without regard to case, a default port or none; a query parameter recorded as
    /// `<redacted>` matches any value) and, with `matchingBodies`, the same body. Entries that
    /// match the same request answer it in turn, the last one again once all were played. A
    /// request that no entry matches fails with an ``UnmatchedRequest`` naming it.
    ///
    /// Bodies are replayed as recorded, decoded, so `Content-Encoding` and the length headers
    /// are left out; an entry without a response (status 0, as a failed request is recorded)
    /// fails as a lost connection.
    public func answer(har url: URL, matchingBodies: Bool = false) throws(HARFileError) {
        let replay = try HARReplay(entries: HARArchive.read(from: url).log.entries, matchingBodies: matchingBodies)
        answer(nil, .matching("an entry of \(url.lastPathComponent)") { replay.hasEntry(for: $0) }) { request in
            replay.play(for: request)
        }
    }
}

/// The entries of a HAR file, found by request.
final class HARReplay: Sendable {
    /// One entry, as the requests it answers are found.
    private struct Candidate: Sendable {
        let index: Int
        let query: [URLQueryItem]
        let body: Data?
        let response: StubResponse
    }

    /// The entries by method and URL without its query, in file order.
    private let candidates: [String: [Candidate]]
    private let matchingBodies: Bool
    /// How many times each group of entries that match the same requests has answered, by its
    /// first entry.
    private let played = Protected<[Int: Int]>([:])

    init(entries: [HARArchive.Entry], matchingBodies: Bool) {
        var candidates: [String: [Candidate]] = [:]
        for (index, entry) in entries.enumerated() {
            guard let url = URL(string: entry.request.url), let key = Self.key(method: entry.request.method, url: url) else { continue }
            let body = entry.request.postData.flatMap { Self.data(text: $0.text, encoding: $0.encoding) }
            candidates[key, default: []].append(Candidate(index: index, query: Self.query(of: url), body: body,
                                                          response: Self.response(entry.response)))
        }
        self.candidates = candidates
        self.matchingBodies = matchingBodies
    }

    /// Whether an entry matches `request`.
    fileprivate func hasEntry(for request: RecordedRequest) -> Bool {
        !matching(request).isEmpty
    }

    /// The answer to `request`: the next of the entries that match it.
    fileprivate func play(for request: RecordedRequest) -> StubResponse {
        let matches = matching(request)
        guard let first = matches.first else { return StubResponse(status: 404) }
        let turn = played.withLock { played in
            defer { played[first.index, default: 0] += 1 }
            return min(played[first.index, default: 0], matches.count - 1)
        }
        return matches[turn].response
    }

    private func matching(_ request: RecordedRequest) -> [Candidate] {
        guard let url = request.url, let key = Self.key(method: request.method, url: url) else { return [] }
        let query = Self.query(of: url)
        return (candidates[key] ?? []).filter { candidate in
            Self.query(query, fits: candidate.query) && (!matchingBodies || (candidate.body ?? Data()) == request.body)
        }
    }

    /// `METHOD scheme://host:port/path`, scheme and host lowercased, the port always written.
    private static func key(method: String, url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let port = url.port ?? (scheme == "https" || scheme == "wss" ? 443 : 80)
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        return "\(method.uppercased()) \(scheme)://\(host):\(port)\(path.isEmpty ? "/" : path)"
    }

    private static func query(of url: URL) -> [URLQueryItem] {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    }

    /// Whether a request's query fits a recorded one: the same parameters in the same order,
    /// a recorded `<redacted>` value fitting any.
    private static func query(_ sent: [URLQueryItem], fits recorded: [URLQueryItem]) -> Bool {
        sent.count == recorded.count && zip(sent, recorded).allSatisfy { sent, recorded in
            sent.name == recorded.name && (recorded.value == Redaction.placeholder || sent.value == recorded.value)
        }
    }

    /// The answer an entry's response makes: its fields in their order, each on its own, but
    /// for HTTP/2 pseudo-fields and those that frame the body as it crossed the wire.
    private static func response(_ recorded: HARArchive.Response) -> StubResponse {
        guard recorded.status > 0 else { return .failure(URLError(.networkConnectionLost)) }
        guard let status = HTTPResponse.Status(received: recorded.status) else { return .failure(URLError(.badServerResponse)) }
        var headerFields = HTTPFields()
        for field in recorded.headers ?? [] {
            guard let name = HTTPField.Name(field.name),
                  ![.contentEncoding, .contentLength, .transferEncoding].contains(name) else { continue }
            headerFields.append(HTTPField(name: name, value: field.value))
        }
        let body = recorded.content.flatMap { data(text: $0.text, encoding: $0.encoding) } ?? Data()
        return StubResponse(status: status, headerFields: headerFields, body: body)
    }

    private static func data(text: String?, encoding: String?) -> Data? {
        guard let text else { return nil }
        return encoding == "base64" ? Data(base64Encoded: text) : Data(text.utf8)
    }
}
