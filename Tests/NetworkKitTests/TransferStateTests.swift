import Foundation
import Testing
@testable import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One transfer's state machine as tables, with no server: what each head, chunk and completion
/// leads to, the limits, downloads' error bodies, redirects' bodies and the idle timeout.
@Suite("Transfer state machine")
struct TransferStateTests {
    static let start = ContinuousClock.now
    static let next = URLRequest(url: URL(string: "http://127.0.0.1/next")!)

    static func makeHead(_ status: Int = 200, _ headers: [String: String] = [:]) -> ResponseHead {
        ResponseHead(url: nil, statusCode: status, headers: headers)
    }

    static func state(idleSeconds: TimeInterval? = nil) -> TransferState {
        TransferState(idleTimeout: idleSeconds.flatMap { IdleTimeout(seconds: $0) }, now: start)
    }

    /// What a head leads to: the limit counts inflated bytes for an encoded body, an announced
    /// length over it stops the request, a followed redirect is told to nobody.
    @Test("head", arguments: [
        (makeHead(), false, false, Int64?.none, TransferState.HeadAction.receive, TransferState.Phase.inMemory),
        (makeHead(200, ["Content-Length": "100"]), false, false, 50, .tooLarge(limit: 50), .stopped),
        (makeHead(200, ["Content-Length": "100", "Content-Encoding": "gzip"]), false, false, 50, .receive, .inMemory),
        (makeHead(302, ["Location": "/next"]), true, false, nil, .followRedirect, .redirecting),
        (makeHead(), false, true, nil, .beginFile, .awaitingHead),
    ])
    func head(_ head: ResponseHead, redirects: Bool, isDownload: Bool, sizeLimit: Int64?,
              action: TransferState.HeadAction, phase: TransferState.Phase) {
        var state = Self.state()
        let taken = state.receive(head: head, redirect: redirects ? Self.next : nil, sizeLimit: sizeLimit,
                                  decompressionLimit: 1_000, isDownload: isDownload, now: Self.start)
        #expect(taken == action)
        #expect(state.phase == phase)
    }

    @Test func anEncodedBodyCountsAgainstTheDecompressionLimitToo() {
        var state = Self.state()
        _ = state.receive(head: Self.makeHead(200, ["Content-Encoding": "deflate"]), redirect: nil, sizeLimit: 10_000,
                          decompressionLimit: 100, isDownload: false, now: Self.start)
        #expect(state.limit == 100)
        let value1 = state.take(Data(count: 60), now: Self.start)
        #expect(value1 == .kept(60))
        let value2 = state.take(Data(count: 60), now: Self.start)
        #expect(value2 == .overLimit(100))
        let value3 = state.take(Data(count: 1), now: Self.start)
        #expect(value3 == .dropped)
        #expect(state.outcome.body.isEmpty)
    }

    /// What a download's file makes of the head.
    @Test("file", arguments: [
        (PartialDownload.Start.write(total: 10), Int64?.none, TransferState.FileAction.write(total: 10), TransferState.Phase.toFile),
        (.write(total: 10), 5, .tooLarge(limit: 5), .stopped),
        (.restart("wrong range"), nil, .restart(cancelNow: false), .stopped),
        (.notFile, nil, .keepInMemory, .downloadErrorBody),
    ])
    func file(_ start: PartialDownload.Start, sizeLimit: Int64?, action: TransferState.FileAction, phase: TransferState.Phase) {
        var state = Self.state()
        _ = state.receive(head: Self.makeHead(), redirect: nil, sizeLimit: sizeLimit, decompressionLimit: 1_000,
                          isDownload: true, now: Self.start)
        let value4 = state.fileBegan(start)
        #expect(value4.0 == action)
        #expect(state.phase == phase)
    }

    /// A restart decided before the transport handed the transfer back cancels it as it comes.
    @Test func aRestartCancelsTheTransferWhenItIsHandedBack() {
        var state = Self.state()
        _ = state.receive(head: Self.makeHead(), redirect: nil, sizeLimit: nil, decompressionLimit: 1_000,
                          isDownload: true, now: Self.start)
        _ = state.fileBegan(.restart("no range"))
        let value5 = state.attach(NoTask())
        #expect(value5)
        let value6 = state.complete(error: URLError(.cancelled))
        #expect(value6.restartReason == "no range")
    }

    /// What becomes of chunks in each phase: a download's error body and a redirect's body are
    /// capped; a stopped transfer drops everything.
    @Test func chunksByPhase() {
        var errorBody = Self.state()
        _ = errorBody.receive(head: Self.makeHead(404), redirect: nil, sizeLimit: nil, decompressionLimit: 1_000,
                              isDownload: true, now: Self.start)
        _ = errorBody.fileBegan(.notFile)
        let value7 = errorBody.take(Data(count: Int(TransferState.errorBodyLimit)), now: Self.start)
        #expect(value7 == .kept(TransferState.errorBodyLimit))
        let value8 = errorBody.take(Data(count: 1), now: Self.start)
        #expect(value8 == .dropped)

        var redirect = Self.state()
        _ = redirect.receive(head: Self.makeHead(302), redirect: Self.next, sizeLimit: nil, decompressionLimit: 1_000,
                             isDownload: false, now: Self.start)
        let value9 = redirect.take(Data(count: Int(TransferState.redirectBodyLimit)), now: Self.start)
        #expect(value9 == .dropped)
        let value10 = redirect.take(Data(count: 1), now: Self.start)
        #expect(value10 == .cancelTransfer)
        // Cancelled for its long body, the redirect is still followed.
        let outcome = redirect.complete(error: URLError(.cancelled))
        #expect(outcome.redirect == Self.next && outcome.error == nil && outcome.head == nil)

        var file = Self.state()
        _ = file.receive(head: Self.makeHead(), redirect: nil, sizeLimit: 15, decompressionLimit: 1_000,
                         isDownload: true, now: Self.start)
        _ = file.fileBegan(.write(total: nil))
        let value11 = file.take(Data(count: 10), now: Self.start)
        #expect(value11 == .toFile)
        let value12 = file.wroteToFile(count: 10, fileLength: 10)
        #expect(value12 == nil)
        let value13 = file.wroteToFile(count: 10, fileLength: 20)
        #expect(value13 == 15)
        let value14 = file.take(Data(count: 10), now: Self.start)
        #expect(value14 == .dropped)
    }

    /// The idle timeout: bytes either way push it back; once it fires, the outcome says
    /// `timedOut` whatever the transport completes with, and a completed transfer never fires.
    @Test func idleTimeout() {
        var state = Self.state(idleSeconds: 1)
        let value15 = state.checkIdle(now: Self.start.advanced(by: .milliseconds(900)))
        #expect(value15.timedOut == false)
        state.sent(bytes: 10, now: Self.start.advanced(by: .milliseconds(900)))
        let value16 = state.checkIdle(now: Self.start.advanced(by: .milliseconds(1_500)))
        #expect(value16.timedOut == false)
        _ = state.receive(head: Self.makeHead(), redirect: nil, sizeLimit: nil, decompressionLimit: 1_000,
                          isDownload: false, now: Self.start.advanced(by: .milliseconds(1_800)))
        let value17 = state.checkIdle(now: Self.start.advanced(by: .milliseconds(2_700)))
        #expect(value17.timedOut == false)
        let value18 = state.checkIdle(now: Self.start.advanced(by: .milliseconds(2_800)))
        #expect(value18.timedOut == true)
        let value19 = state.checkIdle(now: Self.start.advanced(by: .seconds(5)))
        #expect(value19.timedOut == false)   // once
        let outcome = state.complete(error: URLError(.cancelled))
        #expect((outcome.error as? URLError)?.code == .timedOut)

        var done = Self.state(idleSeconds: 1)
        _ = done.complete(error: nil)
        let value20 = done.checkIdle(now: Self.start.advanced(by: .seconds(5)))
        #expect(value20.timedOut == false)
        var noTimeout = Self.state()
        let value21 = noTimeout.checkIdle(now: Self.start.advanced(by: .seconds(3_600)))
        #expect(value21.timedOut == false)
    }

    /// A failure the kit decided (a bad encoding) wins over the transport's own error.
    @Test func theKitsFailureWinsOverTheTransports() {
        var state = Self.state()
        _ = state.receive(head: Self.makeHead(), redirect: nil, sizeLimit: nil, decompressionLimit: 1_000,
                          isDownload: false, now: Self.start)
        let value21 = state.fail(URLError(.cannotDecodeContentData))
        #expect(value21 == nil)   // not handed back yet
        let value22 = state.attach(NoTask())
        #expect(value22)                                  // so cancelled as it comes
        let value23 = state.complete(error: URLError(.cancelled))
        #expect((value23.error as? URLError)?.code == .cannotDecodeContentData)
    }
}

/// A transfer handle for the tables; cancelling it does nothing.
private struct NoTask: TransportTask {
    func cancel() {}
}

