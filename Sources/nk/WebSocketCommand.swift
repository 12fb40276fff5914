import ArgumentParser
import Foundation
import NetworkKit

/// `nk ws URL`: a WebSocket on the terminal, as websocat does it.
struct WebSocketCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ws",
        abstract: "Open a WebSocket: each line of standard input goes as a text message, each message received is printed on a line.",
        discussion: """
            Binary messages are printed as base64. When standard input ends, nk goes on printing \
            what the server sends until it has been quiet for --linger seconds, then closes the \
            connection (1000) and exits 0 once the server answered: a server may stop sending as \
            soon as it reads a close, so closing at once could lose the answers to the last lines. \
            It exits 0 too when the server closes with 1000 or 1001; any other end exits 1 with \
            the close code and reason, or the failure, on standard error. ws: and wss: URLs \
            (http: and https: mean the same).
            """
    )

    @Argument(help: "The WebSocket's URL (ws: or wss:).")
    var url: String

    @Option(help: "The transport: nio (SwiftNIO). urlsession opens no WebSocket on Linux.")
    var transport: TransportChoice = .nio

    @OptionGroup(title: "Connection (curl's flags)")
    var connection: ConnectionOptions

    @Option(name: [.customShort("H"), .customLong("header")], help: "A header to send with the upgrade, 'Name: value'. Repeatable.")
    var headers: [String] = []

    @Option(name: .customLong("subprotocol"), help: "A subprotocol to offer. Repeatable, most wanted first.")
    var subprotocols: [String] = []

    @Option(name: .customLong("max-message-size"), help: "The most bytes one message may have (default 16 MiB); a larger one closes with 1009.")
    var maxMessageSize: Int64 = 16 << 20

    @Option(name: .customLong("ping-interval"), help: "Seconds between keep-alive pings; an unanswered ping ends the connection.")
    var pingInterval: Double?

    @Option(help: "Seconds the server must stay quiet after standard input ended before nk closes (0: close at once).")
    var linger: Double = 1

    @Flag(name: .customLong("compress"), help: "Offer permessage-deflate: messages travel compressed when the server accepts.")
    var compress = false

    @Flag(name: [.customShort("v"), .customLong("verbose")],
          help: "Log the upgrade's request and response headers to stderr (secrets hidden).")
    var verbose = false

    func validate() throws {
        if maxMessageSize < 1 { throw ValidationError("--max-message-size must be at least 1") }
        if let pingInterval, !(pingInterval > 0) { throw ValidationError("--ping-interval must be positive") }
        if !(linger >= 0) || linger > 86_400 { throw ValidationError("--linger must be between 0 and 86400 seconds") }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
              ["ws", "wss", "http", "https"].contains(scheme) else {
            throw ValidationError("the URL must be ws:, wss:, http: or https:, not \(url)")
        }
    }

    func run() async throws {
        var configuration = ServiceConfiguration()
        if verbose { configuration.eventMonitors.append(VerboseMonitor()) }
        let service = try connection.service(transport, configuration, url: url)
        let options = WebSocketOptions(subprotocols: subprotocols, maxMessageBytes: maxMessageSize,
                                       pingInterval: pingInterval.map { .milliseconds(Int64($0 * 1_000)) },
                                       compression: compress)
        do {
            guard let target = URL(string: url) else { throw ValidationError("not a URL: \(url)") }
            let socket = try await service.send(.webSocket(url: target, headerFields: try HeaderOption.parse(headers), options: options))
            connection.saveCookies(of: service)
            let lastMessage = Protected(ContinuousClock.now)
            let linger = Duration.milliseconds(Int64(linger * 1_000))
            let sending = Task { await Self.sendStandardInput(to: socket, lingering: linger, after: lastMessage) }
            defer { sending.cancel() }
            for try await message in socket.messages {
                lastMessage.withLock { $0 = .now }
                switch message {
                case .text(let text): FileHandle.standardOutput.write(Data((text + "\n").utf8))
                case .binary(let data): FileHandle.standardOutput.write(Data((data.base64EncodedString() + "\n").utf8))
                }
            }
        } catch let error as ValidationError {
            throw error
        } catch {
            FileHandle.standardError.write(Data("nk: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Sends each line of standard input as a text message; then, once no message has arrived
    /// (`lastMessage`) for `linger`, closes the connection (1000).
    private static func sendStandardInput(to socket: WebSocket, lingering linger: Duration,
                                          after lastMessage: Protected<ContinuousClock.Instant>) async {
        let lines = AsyncStream<String> { continuation in
            Thread.detachNewThread {
                while let line = readLine(strippingNewline: true) { continuation.yield(line) }
                continuation.finish()
            }
        }
        for await line in lines {
            do {
                try await socket.send(.text(line))
            } catch {
                return  // the connection is closing: the messages loop reports why
            }
        }
        lastMessage.withLock { $0 = max($0, .now) }
        while true {
            let quietSince = lastMessage.snapshot
            do { try await Task.sleep(until: quietSince.advanced(by: linger)) } catch { return }
            if lastMessage.snapshot == quietSince { break }
        }
        await socket.close()
    }
}
