import Foundation
import FixtureServer
@testable import NetworkKit
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLSessionTransport`'s WebSocket: the upgrade on a real `URLSessionWebSocketTask` against
/// the fixture's WebSocket server, and how a connection's end is told, as a table.
@Suite("WebSockets on URLSession")
struct URLSessionWebSocketTests {
    @Test func theUpgradeRunsOnTheSessionsWebSocketTaskAndLeavesNothingBehind() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let transport = URLSessionTransport()
        defer { transport.finishAndInvalidate() }
        let events = CompletionEvents()
        let request = try OutgoingRequest(url: URL(string: "http://127.0.0.1:\(server.port)/echo")!)
        let opened = Protected<(any WebSocketConnection)?>(nil)
        _ = transport.startWebSocket(request, options: WebSocketOptions(), events: events) { connection in
            opened.withLock { $0 = connection }
        }
        let failure = await events.completion()
        #if canImport(FoundationNetworking)
        // Distributions' libcurl has no WebSocket support; the failure names the transport that opens them.
        if case .connection(.unsupported(let feature, let transport))? = failure {
            #expect(transport == "URLSessionTransport")
            #expect(feature.contains("NIOTransport") && feature.contains("NIO trait"))
        } else {
            // A libcurl with WebSockets: the task opened the connection.
            #expect(failure == nil)
            #expect(opened.snapshot != nil)
            await opened.snapshot?.close(code: 1000, reason: "")
        }
        #else
        #expect(failure == nil)
        let connection = try #require(opened.snapshot)
        try await connection.send(.text("hello"))
        #expect(try await connection.receive() == .text("hello"))
        await connection.close(code: 1000, reason: "")
        #endif
        #expect(transport.activeTransferCount == 0)
    }

    @Test func httpURLsBecomeWebSocketURLsForTheTask() {
        #expect(URLSessionTransport.webSocketURL(for: URL(string: "http://a.example/x?y=1")!).absoluteString == "ws://a.example/x?y=1")
        #expect(URLSessionTransport.webSocketURL(for: URL(string: "HTTPS://a.example/")!).absoluteString == "wss://a.example/")
        #expect(URLSessionTransport.webSocketURL(for: URL(string: "ws://a.example/")!).absoluteString == "ws://a.example/")
    }

    #if canImport(FoundationNetworking)
    @Test func foundationNetworkingsUnsupportedWebSocketURLNamesNIO() {
        let noWebSockets = URLError(.unsupportedURL)
        guard case .connection(.unsupported(let feature, _)) = URLSessionTransport.webSocketFailure(
            for: noWebSockets, url: URL(string: "wss://a.example/")) else {
            Issue.record("expected unsupported")
            return
        }
        #expect(feature.contains("NIOTransport"))
        // Any other failure is the transport's own.
        guard case .transport(let error) = URLSessionTransport.webSocketFailure(for: URLError(.timedOut), url: URL(string: "ws://a.example/")) else {
            Issue.record("expected a transport error")
            return
        }
        #expect(error.code == .timedOut)
    }
    #endif

    /// One row: what is known when the task's `receive` failed, and the end it makes.
    struct EndingRow: Sendable, CustomTestStringConvertible {
        let name: String
        var failure: NetworkError?
        var appClosed = false
        var closeCode = 0
        var reason: String?
        let error: any Error & Sendable
        let expected: NetworkError?

        var testDescription: String { name }
    }

    static let endings: [EndingRow] = [
        EndingRow(name: "the kit's own failure comes first", failure: .webSocket(.pingTimedOut), closeCode: 1000,
                  error: URLError(.cancelled), expected: .webSocket(.pingTimedOut)),
        EndingRow(name: "the app's close is a normal end", appClosed: true, closeCode: 4000,
                  error: URLError(.cancelled), expected: nil),
        EndingRow(name: "a message over the limit is 1009",
                  error: NSError(domain: NSPOSIXErrorDomain, code: Int(POSIXErrorCode.EMSGSIZE.rawValue)),
                  expected: .webSocket(.protocolViolation(code: 1009, reason: "a message over 64 bytes"))),
        EndingRow(name: "1000 is a normal end", closeCode: 1000, error: URLError(.networkConnectionLost), expected: nil),
        EndingRow(name: "1001 is a normal end", closeCode: 1001, error: URLError(.networkConnectionLost), expected: nil),
        EndingRow(name: "1005 (no code) is a normal end", closeCode: 1005, error: URLError(.networkConnectionLost), expected: nil),
        EndingRow(name: "1006 is a drop", closeCode: 1006, error: URLError(.networkConnectionLost), expected: .webSocket(.dropped)),
        EndingRow(name: "another code is the server's close, with its reason", closeCode: 4001, reason: "go away",
                  error: URLError(.networkConnectionLost), expected: .webSocket(.closed(code: 4001, reason: "go away"))),
        EndingRow(name: "a lost connection without a close is a drop", error: URLError(.networkConnectionLost),
                  expected: .webSocket(.dropped)),
        EndingRow(name: "a reset is a drop", error: NSError(domain: NSPOSIXErrorDomain, code: Int(POSIXErrorCode.ECONNRESET.rawValue)),
                  expected: .webSocket(.dropped)),
        EndingRow(name: "any other error is the transport's", error: URLError(.timedOut),
                  expected: .transport(TransportError(.timedOut))),
    ]

    @Test(arguments: endings)
    func howAConnectionEnded(_ row: EndingRow) {
        let ending = URLSessionWebSocketConnection.ending(
            failure: row.failure, appClosed: row.appClosed, closeCode: row.closeCode,
            closeReason: row.reason.map { Data($0.utf8) }, error: row.error, maxMessageBytes: 64)
        #expect(ending?.description == row.expected?.description)
    }
}

/// Transfer events that only wait for the completion.
private final class CompletionEvents: TransportEvents {
    private let state = Protected<(done: NetworkError??, waiting: CheckedContinuation<NetworkError?, Never>?)>((nil, nil))

    func completion() async -> NetworkError? {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> NetworkError?? in
                if let done = state.done { return done }
                state.waiting = continuation
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    func transportDidSend(bytes: Int64, of total: Int64?) {}
    func transportDidReceive(head: ResponseHead) {}
    func transportDidReceive(chunk: Data) {}
    func transportDidComplete(failure: NetworkError?) {
        let waiting = state.withLock { state in
            state.done = .some(failure)
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: failure)
    }
}
