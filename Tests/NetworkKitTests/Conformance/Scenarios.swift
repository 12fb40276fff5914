import Foundation
import FixtureServer
@testable import NetworkKit
import NetworkKitTesting
import Testing

/// One conformance scenario: what the server answers (a `StubResponse` per script name, which
/// the fixture server plays over the wire and the stub in memory), the request sent to the
/// first script, and what the kit must deliver.
struct Scenario: Sendable, CustomTestStringConvertible {
    var name: String
    /// The answers by script name (`/scripted/NAME`); the request goes to the first.
    var scripts: [(name: String, answer: StubResponse)]
    var method: HTTPRequest.Method = .get
    var body: Data?
    var timeout: Duration?
    /// Cancels the request this long after it started.
    var cancelAfter: Duration?
    /// The transports the scenario cannot apply to, each with the reason.
    var skips: [ConformanceTransport: String] = [:]
    /// The expectations on what the kit delivered.
    var expect: @Sendable (ScenarioOutcome) async -> Void

    var testDescription: String { name }

    init(_ name: String, _ scripts: [(name: String, answer: StubResponse)], method: HTTPRequest.Method = .get, body: Data? = nil,
         timeout: Duration? = nil, cancelAfter: Duration? = nil, skips: [ConformanceTransport: String] = [:],
         expect: @escaping @Sendable (ScenarioOutcome) async -> Void) {
        self.name = name
        self.scripts = scripts
        self.method = method
        self.body = body
        self.timeout = timeout
        self.cancelAfter = cancelAfter
        self.skips = skips
        self.expect = expect
    }

    /// A new request for the first script.
    func request() -> Request<Data> {
        let request = Request(path: "/scripted/" + (scripts.first?.name ?? ""), method: method, parser: DataParser())
        if let body { request.body = .data(body, contentType: "application/octet-stream") }
        if let timeout { request.timeout = timeout }
        return request
    }

    static let all: [Scenario] = [
        wholeJSON, chunkedProgress, delayedChunks, noContent, upload, redirect, redirectAfterPost, redirectLoop,
        droppedMidBody, headLaterThanTimeout, silentMidBody, cancelledInFlight, networkFailure,
    ] + errorStatuses + compressed + truncatedCompressed

    // MARK: Answers

    static let wholeJSON = Scenario("a JSON answer arrives whole with its head", [("json", .json(#"{"code": 0, "items": [1, 2, 3]}"#))]) { outcome in
        #expect(outcome.result.success.map { String(decoding: $0, as: UTF8.self) } == #"{"code": 0, "items": [1, 2, 3]}"#)
        #expect(outcome.trace.heads.first?.status.code == 200)
        #expect(outcome.trace.heads.first?.headerFields[.contentType]?.hasPrefix("application/json") == true)
        #expect(outcome.trace.heads.first?.url?.path == "/scripted/json")
    }

    /// Download progress is coalesced and reaches the total (4 MiB in 64 KiB chunks).
    static let chunkedProgress = Scenario("a 4 MiB body in 64 KiB chunks: progress coalesced, reaching the total",
                                          [("bytes", StubResponse(body: Data(repeating: 0x61, count: 4 << 20)).chunked(bySize: 64 << 10))]) { outcome in
        let size = Int64(4 << 20)
        #expect(outcome.result.success?.count == Int(size))
        #expect(outcome.trace.body.count == Int(size))
        let reports = outcome.progress.filter { $0.direction == .download }
        #expect(reports.count >= 2 && reports.count <= 102, "\(reports.count) progress calls")
        #expect(reports.last?.completedBytes == size)
        #expect(reports.last?.fractionCompleted == 1)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
    }

    static let delayedChunks = Scenario("chunks 100 ms apart arrive in order after a delayed head",
                                        [("drip", StubResponse(body: Data((0..<250).map { UInt8($0) })).chunked(into: 5)
                                            .delayed(head: .milliseconds(100), betweenChunks: .milliseconds(100)))]) { outcome in
        #expect(outcome.result.success == Data((0..<250).map { UInt8($0) }))
        #expect(outcome.elapsed >= .milliseconds(500))
    }

    static let noContent = Scenario("a 204 has a head and no body", [("none", StubResponse(status: 204))]) { outcome in
        #expect(outcome.result.success?.isEmpty == true, "\(outcome.result)")
        #expect(outcome.trace.heads.map(\.status) == [204])
        #expect(outcome.trace.chunks.isEmpty)
    }

    /// A 1 MB body: upload progress at the seam and through the request, up to the total.
    static let upload = Scenario("upload progress is reported up to the body's length", [("upload", .json(#"{"code": 0}"#))],
                                 method: .post, body: Data(repeating: 7, count: 1_000_000)) { outcome in
        #expect(outcome.result.success != nil, "\(outcome.result)")
        #expect(outcome.receivedBodyLengths == [1_000_000])
        #expect(outcome.trace.sends.last?.bytes == 1_000_000)
        #expect(outcome.trace.sends.allSatisfy { $0.total == nil || $0.total == 1_000_000 })
        let uploads = outcome.progress.filter { $0.direction == .upload }
        #expect(!uploads.isEmpty)
        #expect(uploads.last?.completedBytes == 1_000_000)
    }

    // MARK: Redirects

    /// The transport delivers the 302 as its answer; the kit follows it in a transfer of its own.
    static let redirect = Scenario("a 302 is the transport's answer, and the kit follows it under the redirect policy",
                                   [("moved", .redirect(to: "/scripted/moved-here")), ("moved-here", .json(#"{"code": 0}"#))]) { outcome in
        #expect(outcome.result.success.map { String(decoding: $0, as: UTF8.self) } == #"{"code": 0}"#)
        #expect(outcome.traces.map { $0.heads.map(\.status) } == [[302], [200]])
        #expect(outcome.trace.heads.first?.url?.path == "/scripted/moved-here")
        #expect(outcome.request.responseHead?.status.code == 200)
    }

    static let redirectAfterPost = Scenario("a 303 after a POST continues as a GET", [("posted", .redirect(to: "/scripted/posted-result", status: 303)),
                                                                                      ("posted-result", .json(#"{"code": 0}"#))],
                                            method: .post, body: Data("a=1".utf8)) { outcome in
        #expect(outcome.result.success != nil, "\(outcome.result)")
        #expect(outcome.traces.map(\.method) == ["POST", "GET"])
        #expect(outcome.receivedBodyLengths == [3])
        #expect(outcome.trace.heads.first?.url?.path == "/scripted/posted-result")
    }

    /// A redirect to itself is followed `RedirectProposal.maxRedirects` times, then the attempt fails.
    static let redirectLoop = Scenario("a redirect loop fails with httpTooManyRedirects after 16 redirects",
                                       [("loop", .redirect(to: "/scripted/loop"))]) { outcome in
        guard case .transport(let failure) = outcome.result.failure else {
            Issue.record("got \(outcome.result)")
            return
        }
        #expect(failure.code == .httpTooManyRedirects)
        #expect(outcome.traces.count == 1 + RedirectProposal.maxRedirects)
    }

    // MARK: Errors

    /// The status, body and headers come with the error (`/status/CODE` before the scenarios).
    static let errorStatuses = [404, 500, 503].map { code in
        Scenario("an HTTP \(code) carries its code, body and headers", [("status-\(code)", .json(#"{"error": "status \#(code)"}"#, status: .init(code: code)))]) { outcome in
            guard case .httpStatus(let status, let body, let headers) = outcome.result.failure else {
                Issue.record("got \(outcome.result)")
                return
            }
            #expect(status == code)
            #expect(String(decoding: body, as: UTF8.self).contains("status \(code)"))
            #expect(Response(url: nil, status: .init(code: status), headerFields: headers, data: body).mimeType == "application/json")
            #expect(outcome.result.failure?.header(.contentType)?.hasPrefix("application/json") == true)
            #expect(outcome.result.failure?.description.hasPrefix("HTTP \(code)") == true)
        }
    }

    /// 1,000 of the 100,000 bytes announced, then the connection closes.
    static let droppedMidBody = Scenario("a connection dropped mid-body is a lost connection naming the fault",
                                         [("drop", StubResponse(headerFields: [.contentType: "application/json"], body: Data(repeating: 0x20, count: 100_000))
                                            .droppingConnection(afterBytes: 1_000))]) { outcome in
        guard case .transport(let error) = outcome.result.failure else {
            Issue.record("got \(outcome.result)")
            return
        }
        #expect(error.code == .networkConnectionLost, "\(error)")
        #expect(outcome.result.failure?.description.contains(ServerFault.closedEarly.summary) == true, "\(outcome.result)")
        #expect(outcome.trace.completionCode == .networkConnectionLost)
        #expect(outcome.service.activeRequestCount == 0)
    }

    /// The server answers after 20 s: a 1 s timeout fails the request (had the answer come first,
    /// it would have succeeded).
    static let headLaterThanTimeout = Scenario("a head later than the timeout times out", [("late", StubResponse.json("{}").delayed(head: .seconds(20)))],
                                               timeout: .seconds(1)) { outcome in
        #expect(outcome.result.failure?.isTimeout == true, "got \(outcome.result)")
        #expect(outcome.trace.heads.isEmpty)
    }

    /// 6 s of silence after 100 bytes: long enough that a loaded machine delivers the head
    /// before the timeout, so the silence is mid-body.
    static let silentMidBody = Scenario("a server silent mid-body times out", [("silent", StubResponse(body: Data(repeating: 0x61, count: 1_000))
                                            .timingOut(afterBytes: 100))], timeout: .seconds(6)) { outcome in
        #expect(outcome.result.failure?.isTimeout == true, "got \(outcome.result)")
        #expect(outcome.trace.heads.count == 1)
        #expect(outcome.trace.body.count <= 100)
    }

    /// Cancelled 0.2 s in, long before the server would answer: one completion, a cancellation (an
    /// answer would have completed it without one), and the request finishes cancelled once.
    static let cancelledInFlight = Scenario("a cancel in flight ends the transfer with one cancellation",
                                            [("slow", StubResponse.json("{}").delayed(head: .seconds(10)))],
                                            cancelAfter: .milliseconds(200)) { outcome in
        guard case .cancelled = outcome.result.failure else {
            Issue.record("got \(outcome.result)")
            return
        }
        #expect(outcome.trace.completionCode == .cancelled)
        outcome.request.cancel()
        try? await Task.sleep(for: .milliseconds(100))
        #expect(outcome.completions.all.count == 1)
        #expect(outcome.request.state == .cancelled)
        #expect(outcome.service.activeRequestCount == 0)
    }

    static let networkFailure = Scenario("a network failure reaches the caller with its code", [("offline", .failure(URLError(.notConnectedToInternet)))],
                                         skips: [.urlSession: "a network failure has no server side to play it; ErrorTests.nothingListening covers the real transports",
                                                 .nio: "a network failure has no server side to play it; ErrorTests.nothingListening covers the real transports"]) { outcome in
        guard case .transport(let error) = outcome.result.failure else {
            Issue.record("got \(outcome.result)")
            return
        }
        #expect(error.code == .notConnectedToInternet)
        #expect(outcome.trace.heads.isEmpty)
    }

    // MARK: Content coding

    /// A JSON array of 5,000 items, compressed by the fixture's own encoders as the coding says
    /// (`rawdeflate`: raw deflate sent as `deflate`).
    static func compressedItems(_ coding: FixtureCoding, cut: Int = 0) -> StubResponse {
        let items = (0..<5000).map { #"{"id": \#($0), "name": "item \#($0)", "tags": ["a", "b"]}"# }
        var body = coding.compress(Data(("[" + items.joined(separator: ",") + "]").utf8))
        body.removeLast(min(cut, body.count))
        return StubResponse(headerFields: [.contentType: "application/json", .contentEncoding: coding.headerValue],
                            body: body).chunked(bySize: 4096)
    }

    static let compressed = FixtureCoding.allCases.map { coding in
        Scenario("a \(coding) body is delivered inflated", [("compressed-\(coding)", compressedItems(coding))]) { outcome in
            let json = outcome.result.success.flatMap { try? JSON(data: $0) }
            #expect(json?[4999]?["name"] == "item 4999", "\(outcome.result)")
            #expect(outcome.trace.heads.first?.contentCoding != nil)
        }
    }

    /// libcurl does not notice a compressed stream that stops early: URLSession hands the kit
    /// what inflated, which the JSON parser refuses. The NIO transport and the stub inflate with
    /// the kit's inflater, which does notice, and say so as URLSession does for corrupt data.
    static let truncatedCompressed = [FixtureCoding.gzip, .deflate, .br, .zstd].map { coding in
        Scenario("a cut \(coding) body fails", [("cut-\(coding)", compressedItems(coding, cut: 20))]) { outcome in
            let parsed = outcome.result.flatMap { data in
                Result { try JSON(data: data) }.mapError { NetworkError.wrap($0) }
            }
            #expect(parsed.failure != nil, "a cut \(coding) body was accepted: \(outcome.result)")
            if outcome.transport != .urlSession {
                guard case .transport(let error) = outcome.result.failure else {
                    Issue.record("got \(outcome.result)")
                    return
                }
                #expect(error.code == .cannotDecodeContentData && error.detail.contains("truncated"), "\(error)")
            }
        }
    }
}
