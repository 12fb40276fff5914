import Foundation
import Testing
@testable import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One transfer's state machine as tables, with no server: what each event of its four families
/// (head, body, control, completion) leads to: the limits, downloads' files and error bodies,
/// redirects' bodies, inflation, the idle timeout, and the transitions no driver may ask for.
@Suite("Transfer state machine")
struct TransferStateMachineTests {
    typealias Machine = Transfer.StateMachine
    static let start = ContinuousClock.now
    static let next = OutgoingRequest(head: HTTPRequest(url: URL(string: "http://127.0.0.1/next")!))

    static func makeHead(_ status: Int = 200, _ headers: HTTPFields = [:]) -> ResponseHead {
        ResponseHead(url: nil, status: .init(code: status), headerFields: headers)
    }

    static func state(sizeLimit: Int64? = nil, decompressionLimit: Int64 = 1_000, destination: Machine.Destination = .memory,
                      transportDecodes: Bool = true, idleSeconds: TimeInterval? = nil) -> Machine {
        Machine(sizeLimit: sizeLimit, decompressionLimit: decompressionLimit, destination: destination,
                transportDecodes: transportDecodes, idleTimeout: idleSeconds.flatMap { IdleTimeout(seconds: $0) },
                now: start, assertsOnBrokenTransition: false)
    }

    static func head(_ head: ResponseHead = makeHead(), redirect: OutgoingRequest? = nil,
                     at now: ContinuousClock.Instant = start) -> Machine.HeadEvent {
        .head(head, redirect: redirect, now: now)
    }

    static func chunk(_ count: Int, at now: ContinuousClock.Instant = start) -> Machine.BodyEvent {
        .chunk(Data(count: count), now: now)
    }

    /// What a head leads to: the limit counts inflated bytes for an encoded body, an announced
    /// length over it stops the request, a followed redirect is told to nobody, a download asks
    /// its file.
    @Test("head", arguments: [
        (makeHead(), false, false, Int64?.none, Machine.HeadAction.receive, Machine.Phase.inMemory),
        (makeHead(200, [.contentLength: "100"]), false, false, 50, .tooLarge(limit: 50), .stopped),
        (makeHead(200, [.contentLength: "100", .contentEncoding: "gzip"]), false, false, 50, .receive, .inMemory),
        (makeHead(302, [.location: "/next"]), true, false, nil, .followRedirect, .redirecting),
        (makeHead(), false, true, nil, .beginFile, .awaitingFile),
    ])
    func head(_ head: ResponseHead, redirects: Bool, isDownload: Bool, sizeLimit: Int64?,
              action: Machine.HeadAction, phase: Machine.Phase) {
        var state = Self.state(sizeLimit: sizeLimit, destination: isDownload ? .file : .memory)
        let taken = state.receive(Self.head(head, redirect: redirects ? Self.next : nil))
        #expect(taken == action)
        #expect(state.phase == phase)
    }

    @Test func anEncodedBodyCountsAgainstTheDecompressionLimitToo() {
        var state = Self.state(sizeLimit: 10_000, decompressionLimit: 100)
        _ = state.receive(Self.head(Self.makeHead(200, [.contentEncoding: "deflate"])))
        #expect(state.limit == 100)
        #expect(state.inflater == nil)   // the transport inflates
        let firstChunk = state.receive(Self.chunk(60))
        #expect(firstChunk == .kept(60))
        let chunkOverTheLimit = state.receive(Self.chunk(60))
        #expect(chunkOverTheLimit == .overLimit(100))
        let chunkAfterTheLimit = state.receive(Self.chunk(1))
        #expect(chunkAfterTheLimit == .dropped)
        #expect(state.outcome.body.isEmpty)
    }

    /// An encoded body the transport delivers as sent goes through the machine's inflater, piece
    /// by piece; once the body is refused, chunks are dropped, not inflated; a body whose end was
    /// reached is checked by the inflater before the outcome is handed.
    @Test func anEncodedBodyIsInflatedWhenTheTransportDoesNot() throws {
        var state = Self.state(sizeLimit: 10, transportDecodes: false)
        _ = state.receive(Self.head(Self.makeHead(200, [.contentEncoding: "gzip"])))
        let inflater = try #require(state.inflater)
        let chunk = state.receive(Self.chunk(3))
        #expect(chunk == .inflate(inflater))
        let piece = state.receive(.inflated(Data(count: 8), now: Self.start))
        #expect(piece == .kept(8))
        let pieceOverTheLimit = state.receive(.inflated(Data(count: 8), now: Self.start))
        #expect(pieceOverTheLimit == .overLimit(10))
        let chunkAfterTheLimit = state.receive(Self.chunk(3))
        #expect(chunkAfterTheLimit == .dropped)

        var whole = Self.state(transportDecodes: false)
        _ = whole.receive(Self.head(Self.makeHead(200, [.contentEncoding: "gzip"])))
        let wholeInflater = try #require(whole.inflater)
        guard case .finishInflating(let checked) = whole.receive(.transportCompleted(failure: nil)) else {
            Issue.record("the inflater did not check the body's end")
            return
        }
        #expect(checked === wholeInflater)
        let bad = NetworkError.transport(TransportError(.badContentEncoding, transportText: "cut short"))
        guard case .hand(let outcome) = whole.receive(.inflaterFinished(failure: bad)) else {
            Issue.record("no outcome after the inflater's check")
            return
        }
        guard case .transport(let failure)? = outcome.error else {
            Issue.record("got \(String(describing: outcome.error))")
            return
        }
        #expect(failure.code == .cannotDecodeContentData)
        #expect(whole.phase == .completed && whole.inflater == nil)
    }

    /// What a download's file makes of the head.
    @Test("file", arguments: [
        (PartialDownload.Start.write(total: 10), Int64?.none, Machine.HeadAction.writeFile(total: 10), Machine.Phase.toFile),
        (.write(total: 10), 5, .tooLarge(limit: 5), .stopped),
        (.restart("wrong range"), nil, .cancelTransfer, .stopped),
        (.notFile, nil, .keepInMemory, .errorBody),
    ])
    func file(_ start: PartialDownload.Start, sizeLimit: Int64?, action: Machine.HeadAction, phase: Machine.Phase) {
        var state = Self.state(sizeLimit: sizeLimit, destination: .file)
        _ = state.receive(Self.head())
        let fileAction = state.receive(.fileBegan(start))
        #expect(fileAction == action)
        #expect(state.phase == phase)
        #expect(state.brokenTransition == nil)
    }

    /// A cancellation decided before the transport handed the transfer back (a download's
    /// restart, a failure) is carried out as it comes; after completion nothing is cancelled.
    @Test func aCancellationWaitsForTheTransferToBeHandedBack() {
        var state = Self.state(destination: .file)
        let beforeAnything = state.receive(.attached)
        #expect(beforeAnything == .none)
        _ = state.receive(Self.head())
        _ = state.receive(.fileBegan(.restart("no range")))
        let cancelWhenHandedBack = state.receive(.attached)
        #expect(cancelWhenHandedBack == .cancelTransfer)
        guard case .hand(let restarted) = state.receive(.transportCompleted(failure: .cancelled)) else {
            Issue.record("no outcome")
            return
        }
        #expect(restarted.restartReason == "no range")
        let afterCompletion = state.receive(.attached)
        #expect(afterCompletion == .none)
    }

    /// What becomes of chunks in each phase: a download's error body and a redirect's body are
    /// capped; a stopped transfer drops everything.
    @Test func chunksByPhase() {
        var errorBody = Self.state(destination: .file)
        _ = errorBody.receive(Self.head(Self.makeHead(404)))
        _ = errorBody.receive(.fileBegan(.notFile))
        let errorBodyUpToItsLimit = errorBody.receive(Self.chunk(Int(Machine.errorBodyLimit)))
        #expect(errorBodyUpToItsLimit == .kept(Machine.errorBodyLimit))
        let errorBodyPastItsLimit = errorBody.receive(Self.chunk(1))
        #expect(errorBodyPastItsLimit == .dropped)

        var redirect = Self.state()
        _ = redirect.receive(Self.head(Self.makeHead(302), redirect: Self.next))
        let redirectBodyUpToItsLimit = redirect.receive(Self.chunk(Int(Machine.redirectBodyLimit)))
        #expect(redirectBodyUpToItsLimit == .dropped)
        let redirectBodyPastItsLimit = redirect.receive(Self.chunk(1))
        #expect(redirectBodyPastItsLimit == .cancelTransfer)
        // Cancelled for its long body, the redirect is still followed.
        guard case .hand(let outcome) = redirect.receive(.transportCompleted(failure: .cancelled)) else {
            Issue.record("no outcome")
            return
        }
        #expect(outcome.redirect == Self.next && outcome.error == nil && outcome.head == nil)

        var file = Self.state(sizeLimit: 15, destination: .file)
        _ = file.receive(Self.head())
        _ = file.receive(.fileBegan(.write(total: nil)))
        let fileChunk = file.receive(Self.chunk(10))
        #expect(fileChunk == .writeToFile)
        let firstWriteUnderTheLimit = file.receive(.wroteToFile(count: 10, fileLength: 10))
        #expect(firstWriteUnderTheLimit == .written(10))
        let secondWriteOverTheLimit = file.receive(.wroteToFile(count: 10, fileLength: 20))
        #expect(secondWriteOverTheLimit == .overLimit(15))
        let chunkAfterTheLimitStopped = file.receive(Self.chunk(10))
        #expect(chunkAfterTheLimitStopped == .dropped)
    }

    /// The idle timeout: bytes either way push it back; once it fires, the outcome says
    /// `timedOut` whatever the transport completes with, and a completed transfer never fires.
    @Test func idleTimeout() {
        var state = Self.state(idleSeconds: 1)
        let checkBeforeTheTimeout = state.receive(.idleCheck(now: Self.start.advanced(by: .milliseconds(900))))
        #expect(checkBeforeTheTimeout == .none)
        _ = state.receive(.sent(bytes: 10, now: Self.start.advanced(by: .milliseconds(900))))
        let checkAfterUploadProgress = state.receive(.idleCheck(now: Self.start.advanced(by: .milliseconds(1_500))))
        #expect(checkAfterUploadProgress == .none)
        _ = state.receive(Self.head(at: Self.start.advanced(by: .milliseconds(1_800))))
        let checkAfterTheHead = state.receive(.idleCheck(now: Self.start.advanced(by: .milliseconds(2_700))))
        #expect(checkAfterTheHead == .none)
        let checkAtTheTimeout = state.receive(.idleCheck(now: Self.start.advanced(by: .milliseconds(2_800))))
        #expect(checkAtTheTimeout == .cancelTransfer)
        let checkAfterItFired = state.receive(.idleCheck(now: Self.start.advanced(by: .seconds(5))))
        #expect(checkAfterItFired == .none)   // once
        guard case .hand(let outcome) = state.receive(.transportCompleted(failure: .cancelled)) else {
            Issue.record("no outcome")
            return
        }
        #expect(outcome.error?.isTimeout == true)

        var paused = Self.state(idleSeconds: 1)
        _ = paused.receive(.paused(true, now: Self.start))
        let checkWhilePaused = paused.receive(.idleCheck(now: Self.start.advanced(by: .seconds(5))))
        #expect(checkWhilePaused == .none)

        var done = Self.state(idleSeconds: 1)
        _ = done.receive(.transportCompleted(failure: nil))
        let checkAfterCompletion = done.receive(.idleCheck(now: Self.start.advanced(by: .seconds(5))))
        #expect(checkAfterCompletion == .none)
        var noTimeout = Self.state()
        let checkWithoutATimeout = noTimeout.receive(.idleCheck(now: Self.start.advanced(by: .seconds(3_600))))
        #expect(checkWithoutATimeout == .none)
    }

    /// A failure the kit decided (a bad encoding) wins over the transport's own error.
    @Test func theKitsFailureWinsOverTheTransports() {
        var state = Self.state()
        _ = state.receive(Self.head())
        let cancel = state.receive(.failed(.transport(TransportError(.cannotDecodeContentData))))
        #expect(cancel == .cancelTransfer)
        let secondFailure = state.receive(.failed(.cancelled))
        #expect(secondFailure == .none)   // the first stands
        let cancelWhenHandedBack = state.receive(.attached)
        #expect(cancelWhenHandedBack == .cancelTransfer)   // so cancelled as it comes
        guard case .hand(let completed) = state.receive(.transportCompleted(failure: .cancelled)),
              case .transport(let failure)? = completed.error else {
            Issue.record("the kit's failure did not stand")
            return
        }
        #expect(failure.code == .cannotDecodeContentData)
    }

    /// Events no phase waits for are recorded (and stop a debug build when not recorded): a
    /// file's answer without a download's head, a second completion, an inflater's check that
    /// was not asked for.
    @Test func brokenTransitions() {
        var fileWithoutADownload = Self.state()
        _ = fileWithoutADownload.receive(.fileBegan(.notFile))
        #expect(fileWithoutADownload.brokenTransition == "fileBegan while awaitingHead")

        var completedTwice = Self.state()
        _ = completedTwice.receive(.transportCompleted(failure: nil))
        #expect(completedTwice.brokenTransition == nil)
        _ = completedTwice.receive(.transportCompleted(failure: nil))
        #expect(completedTwice.brokenTransition == "transportCompleted while completed")

        var inflaterNotAsked = Self.state()
        _ = inflaterNotAsked.receive(.inflaterFinished(failure: nil))
        #expect(inflaterNotAsked.brokenTransition == "inflaterFinished while awaitingHead")
    }
}
