import Foundation
import NetworkKit
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `nk get --verbose`: what each attempt sends and receives, on stderr, the way `curl -v`
/// shows it (`>` sent, `<` received, `*` notes), with secrets hidden. An encoded answer's
/// coding is noted, and its decoded size at the end.
final class VerboseMonitor: EventMonitor {
    let redaction = Redaction.standard
    /// The coding of each request's latest answer, while it runs.
    private let codings = Mutex<[RequestID: ContentCoding]>([:])

    func request(_ id: RequestID, didSend request: OutgoingRequest, attempt: Int) {
        var lines = ["* attempt \(attempt)"]
        let target = request.head.path ?? "/"
        let (path, query) = target.firstIndex(of: "?").map { (String(target[..<$0]), "?" + redaction.form(String(target[target.index(after: $0)...]))) }
            ?? (target, "")
        lines.append("> \(request.head.method.rawValue) \(path)\(query)")
        if let authority = request.head.authority { lines.append("> Host: \(authority)") }
        lines += redaction.headerLines(request.head.headerFields).map { "> " + $0 }
        switch request.body {
        case .none: break
        case .data(let body): lines.append("* \(body.count) bytes of body")
        case .file(let file): lines.append("* body from \(file.path)")
        case .stream(let stream): lines.append("* body streamed" + (stream.length.map { ", \($0) bytes" } ?? ", of unknown length"))
        }
        write(lines + [">"])
    }

    func request(_ id: RequestID, didReceive head: ResponseHead, attempt: Int) {
        let reason = HTTPURLResponse.localizedString(forStatusCode: head.status.code).capitalized
        // URLSession does not say which version of HTTP answered.
        let version = head.httpVersion.map { "\($0) " } ?? ""
        write(["< \(version)\(head.status.code) \(reason)"] + redaction.headerLines(head.headerFields).map { "< " + $0 } + ["<"])
        codings.withLock { $0[id] = head.contentCoding }
        if let coding = head.contentCoding { write(["* the body is \(coding.name)-encoded: decoded as it arrives"]) }
    }

    func request(_ id: RequestID, willFollowRedirect head: ResponseHead, to request: OutgoingRequest, attempt: Int) {
        let reason = HTTPURLResponse.localizedString(forStatusCode: head.status.code).capitalized
        write(["< \(head.status.code) \(reason)"] + redaction.headerLines(head.headerFields).map { "< " + $0 }
              + ["* following the redirect to \(redaction.url(request.url))"])
    }

    func request(_ id: RequestID, willResendUnprocessed attempt: Int, error: NetworkError) {
        write(["* attempt \(attempt) was not processed by the server (\(error)); sending it again at once"])
    }

    func request(_ id: RequestID, willRetryAfter delay: Duration, attempt: Int, error: NetworkError) {
        write(["* attempt \(attempt) failed: \(error); retrying in \(delay)"])
    }

    func requestDidFinish(_ metrics: RequestMetrics) {
        let status = metrics.statusCode.map { "HTTP \($0)" } ?? "no response"
        let attempts = metrics.attempts == 1 ? "1 attempt" : "\(metrics.attempts) attempts"
        switch metrics.cache {
        case .notUsed: break
        case .hit: write(["* cache hit: answered from the cache, nothing sent"])
        case .miss: write(["* cache miss: fetched and stored"])
        case .revalidated: write(["* cache revalidated: 304 Not Modified, answered from the cache"])
        case .refreshed: write(["* cache refreshed: the stale entry was replaced"])
        }
        let coding = codings.withLock { $0.removeValue(forKey: metrics.id) }
        let received = coding.map { "\(metrics.bytesReceived) bytes received (decoded from \($0.name))" }
            ?? "\(metrics.bytesReceived) bytes received"
        write(["* \(status) in \(String(format: "%.1f", metrics.duration.milliseconds)) ms, \(received), \(attempts)"])
    }

    private func write(_ lines: [String]) {
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
