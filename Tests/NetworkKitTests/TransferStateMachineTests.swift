import Foundation
import Testing
@testable import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One transfer's state machine as tables, with no server: what each head, chunk and completion
/// leads to, the limits, downloads' error bodies, redirects' bodies and the idle timeout.
@Suite("Transfer state machine")
struct TransferStateMachineTests {
    static let start = ContinuousClock.now
    static let next = OutgoingRequest(head: HTTPRequest(url: URL(string: "http://127.0.0.1/next")!))

    static func makeHead(_ status: Int = 200, _ headers: HTTPFields = [:]) -> ResponseHead {
        ResponseHead(url: nil, status: .init(code: status), headerFields: headers)
    }

    static func state(idleSeconds: TimeInterval? = nil) -> Transfer.StateMachine {
        Transfer.StateMachine(idleTimeout: idleSeconds.flatMap { IdleTimeout(seconds: $0) }, now: start)
    }

    /// What a head leads to: the limit counts inflated bytes for an encoded body, an announced
    /// length over it stops the request, a followed redirect is told to nobody.
    @Test("head", arguments: [
        (makeHead(), false, false, Int64?.none, Transfer.StateMachine.HeadAction.receive, Transfer.StateMachine.Phase.inMemory),
        (makeHead(200, [.contentLength: "100"]), false, false, 50, .tooLarge(limit: 50), .stopped),
        (makeHead(200, [.contentLength: "100", .contentEncoding: "gzip"]), false, false, 50, .receive, .inMemory),
        (makeHead(302, [.location: "/next"]), true, false, nil, .followRedirect, .redirecting),
        (makeHead(), false, true, nil, .beginFile, .awaitingHead),
    ])
    func head(_ head: ResponseHead, redirects: Bool, isDownload: Bool, sizeLimit: Int64?,
              action: Transfer.StateMachine.HeadAction, phase: Transfer.StateMachine.Phase) {
        var state = Self.state()
        let taken = state.receive(head: head, redirect: redirects ? Self.next : nil, sizeLimit: sizeLimit,
                                  decompressionLimit: 1_000, destination: isDownload ? .file : .memory, now: Self.start)
        #expect(taken == action)
        #expect(state.phase == phase)
    }

    @Test func anEncodedBodyCountsAgainstTheDecompressionLimitToo() {
        var state = Self.state()
        _ = state.receive(head: Self.makeHead(200, [.contentEncoding: "deflate"]), redirect: nil, sizeLimit: 10_000,
                          decompressionLimit: 100, destination: .memory, now: Self.start)
        #expect(state.limit == 100)
        let firstChunk = state.take(Data(count: 60), now: Self.start)
        #expect(firstChunk == .kept(60))
        let chunkOverTheLimit = state.take(Data(count: 60), now: Self.start)
        #expect(chunkOverTheLimit == .overLimit(100))
        let chunkAfterTheLimit = state.take(Data(count: 1), now: Self.start)
        #expect(chunkAfterTheLimit == .dropped)
        #expect(state.outcome.body.isEmpty)
    }

    /// What a download's file makes of the head.
    @Test("file", arguments: [
        (PartialDownload.Start.write(total: 10), Int64?.none, Transfer.StateMachine.FileAction.write(total: 10), Transfer.StateMachine.Phase.toFile),
        (.write(total: 10), 5, .tooLarge(limit: 5), .stopped),
        (.restart("wrong range"), nil, .restart(cancelNow: false), .stopped),
        (.notFile, nil, .keepInMemory, .errorBody),
    ])
    func file(_ start: PartialDownload.Start, sizeLimit: Int64?, action: Transfer.StateMachine.FileAction, phase: Transfer.StateMachine.Phase) {
        var state = Self.state()
        _ = state.receive(head: Self.makeHead(), redirect: nil, sizeLimit: sizeLimit, decompressionLimit: 1_000,
                          destination: .file, now: Self.start)
        let (fileAction, _) = state.fileBegan(start)
        #expect(fileAction == action)
        #expect(state.phase == phase)
    }

    /// A restart decided before the transport handed the transfer back cancels it as it comes.
    @Test func aRestartCancelsTheTransferWhenItIsHandedBack() {
        var state = Self.state()
        _ = state.receive(head: Self.makeHead(), redirect: nil, sizeLimit: nil, decompressionLimit: 1_000,
                          destination: .file, now: Self.start)
        _ = state.fileBegan(.restart("no range"))
        let cancelWhenHandedBack = state.attach(NoTask())
        #expect(cancelWhenHandedBack)
        let restarted = state.complete(failure: .cancelled)
        #expect(restarted.restartReason == "no range")
    }

    /// What becomes of chunks in each phase: a download's error body and a redirect's body are
    /// capped; a stopped transfer drops everything.
    @Test func chunksByPhase() {
        var errorBody = Self.state()
        _ = errorBody.receive(head: Self.makeHead(404), redirect: nil, sizeLimit: nil, decompressionLimit: 1_000,
                              destination: .file, now: Self.start)
        _ = errorBody.fileBegan(.notFile)
        let errorBodyUpToItsLimit = errorBody.take(Data(count: Int(Transfer.StateMachine.errorBodyLimit)), now: Self.start)
        #expect(errorBodyUpToItsLimit == .kept(Transfer.StateMachine.errorBodyLimit))
        let errorBodyPastItsLimit = errorBody.take(Data(count: 1), now: Self.start)
        #expect(errorBodyPastItsLimit == .dropped)

        var redirect = Self.state()
        _ = redirect.receive(head: Self.makeHead(302), redirect: Self.next, sizeLimit: nil, decompressionLimit: 1_000,
                             destination: .memory, now: Self.start)
        let redirectBodyUpToItsLimit = redirect.take(Data(count: Int(Transfer.StateMachine.redirectBodyLimit)), now: Self.start)
        #expect(redirectBodyUpToItsLimit == .dropped)
        let redirectBodyPastItsLimit = redirect.take(Data(count: 1), now: Self.start)
        #expect(redirectBodyPastItsLimit == .cancelTransfer)
        // Cancelled for its long body, the redirect is still followed.
        let outcome = redirect.complete(failure: .cancelled)
        #expect(outcome.redirect == Self.next && outcome.error == nil && outcome.head == nil)

        var file = Self.state()
        _ = file.receive(head: Self.makeHead(), redirect: nil, sizeLimit: 15, decompressionLimit: 1_000,
                         destination: .file, now: Self.start)
        _ = file.fileBegan(.write(total: nil))
        let fileChunk = file.take(Data(count: 10), now: Self.start)
        #expect(fileChunk == .toFile)
        let firstWriteUnderTheLimit = file.wroteToFile(count: 10, fileLength: 10)
        #expect(firstWriteUnderTheLimit == nil)
        let secondWriteOverTheLimit = file.wroteToFile(count: 10, fileLength: 20)
        #expect(secondWriteOverTheLimit == 15)
        let chunkAfterTheLimitStopped = file.take(Data(count: 10), now: Self.start)
        #expect(chunkAfterTheLimitStopped == .dropped)
    }

    /// The idle timeout: bytes either way push it back; once it fires, the outcome says
    /// `timedOut` whatever the transport completes with, and a completed transfer never fires.
    @Test func idleTimeout() {
        var state = Self.state(idleSeconds: 1)
        let checkBeforeTheTimeout = state.checkIdle(now: Self.start.advanced(by: .milliseconds(900)))
        #expect(checkBeforeTheTimeout.timedOut == false)
        state.sent(bytes: 10, now: Self.start.advanced(by: .milliseconds(900)))
        let checkAfterUploadProgress = state.checkIdle(now: Self.start.advanced(by: .milliseconds(1_500)))
        #expect(checkAfterUploadProgress.timedOut == false)
        _ = state.receive(head: Self.makeHead(), redirect: nil, sizeLimit: nil, decompressionLimit: 1_000,
                          destination: .memory, now: Self.start.advanced(by: .milliseconds(1_800)))
        let checkAfterTheHead = state.checkIdle(now: Self.start.advanced(by: .milliseconds(2_700)))
        #expect(checkAfterTheHead.timedOut == false)
        let checkAtTheTimeout = state.checkIdle(now: Self.start.advanced(by: .milliseconds(2_800)))
        #expect(checkAtTheTimeout.timedOut == true)
        let checkAfterItFired = state.checkIdle(now: Self.start.advanced(by: .seconds(5)))
        #expect(checkAfterItFired.timedOut == false)   // once
        let outcome = state.complete(failure: .cancelled)
        #expect(outcome.error?.isTimeout == true)

        var done = Self.state(idleSeconds: 1)
        _ = done.complete(failure: nil)
        let checkAfterCompletion = done.checkIdle(now: Self.start.advanced(by: .seconds(5)))
        #expect(checkAfterCompletion.timedOut == false)
        var noTimeout = Self.state()
        let checkWithoutATimeout = noTimeout.checkIdle(now: Self.start.advanced(by: .seconds(3_600)))
        #expect(checkWithoutATimeout.timedOut == false)
    }

    /// A failure the kit decided (a bad encoding) wins over the transport's own error.
    @Test func theKitsFailureWinsOverTheTransports() {
        var state = Self.state()
        _ = state.receive(head: Self.makeHead(), redirect: nil, sizeLimit: nil, decompressionLimit: 1_000,
                          destination: .memory, now: Self.start)
        let taskToCancel = state.fail(.transport(TransportError(.cannotDecodeContentData)))
        #expect(taskToCancel == nil)   // not handed back yet
        let cancelWhenHandedBack = state.attach(NoTask())
        #expect(cancelWhenHandedBack)                                  // so cancelled as it comes
        let completed = state.complete(failure: .cancelled)
        guard case .transport(let failure)? = completed.error else {
            Issue.record("got \(String(describing: completed.error))")
            return
        }
        #expect(failure.code == .cannotDecodeContentData)
    }
}

/// A transfer handle for the tables; cancelling it does nothing.
private struct NoTask: TransportTask {
    func cancel() {}
}

