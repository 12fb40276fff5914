import FixtureServer
import Foundation
import NetworkKit
import NetworkKitNIO
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// WebSockets on loopback against the fixture's `WebSocketServer` (`NK_BENCH_ONLY=websocket`):
/// - echo round trips of 64-byte text messages, one at a time and 64 in flight: the kit on NIO
///   against a bare client on SwiftNIO's WebSocket frames (bound: ≤ 1.10), medians of five
///   interleaved rounds, each on new connections;
/// - opening a connection, to its first message: kit / bare (bound: ≤ 1.10), the same way;
/// - 1 GiB of 64 KiB binary messages to a consumer slower than the server: the peak RSS growth
///   (bound: < 64 MiB).
///
/// The bare client is what an app writes on NIOWebSocket alone: SwiftNIO's client upgrader, a
/// handler that hands each frame to an `AsyncStream`, masked frames written down the channel. It
/// checks nothing (fragments, UTF-8, limits, control frames) and has no backpressure.
struct WebSocketBenchmarks {
    let echoes = 2_000
    let opens = 200
    let rounds = 5

    /// Every part, or the one `NK_BENCH_WEBSOCKET` names (`echo`, `open`, `memory`); for a
    /// profiler, `open-kit` or `open-bare` opens 2,000 connections with that client alone.
    func run() async throws {
        let part = ProcessInfo.processInfo.environment["NK_BENCH_WEBSOCKET"]
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        print("WebSockets against ws://127.0.0.1:\(server.port) (ratios: NetworkKit / bare NIOWebSocket, lower is better)")
        if part == nil || part == "echo" {
            for inFlight in [1, 64] { try await echo(server, inFlight: inFlight) }
        }
        if part == nil || part == "open" { try await open(server) }
        if let side = part, side.hasPrefix("open-") { try await openAlone(server, kit: side == "open-kit") }
        if part == nil || part == "memory" { try await slowConsumer(server) }
    }

    // MARK: Echo

    private func echo(_ server: WebSocketServer, inFlight: Int) async throws {
        let message = String(repeating: "m", count: 64)
        var results: [[Double]] = []
        for _ in 0..<rounds {
            let service = Self.service(server)
            let kit = try await service.send(.webSocket(path: "/echo"))
            let bare = try await BareWebSocket.open(port: server.port, path: "/echo")
            let clients: [(Int, Int) async throws -> Double] = [
                { count, inFlight in try await Self.timed { try await Self.kitEcho(kit, message, count: count, inFlight: inFlight) } },
                { count, inFlight in try await Self.timed { try await bare.echo(message, count: count, inFlight: inFlight) } },
            ]
            for client in clients { _ = try await client(100, inFlight) }
            results.append(try await interleavedRound(count: echoes, inFlight: inFlight, clients))
            await kit.close()
            bare.close()
        }
        report("echo x\(echoes) \(inFlight == 1 ? "one at a time" : "\(inFlight) in flight")", results, count: echoes, unit: "round trips/s")
    }

    private static func kitEcho(_ socket: WebSocket, _ text: String, count: Int, inFlight: Int) async throws {
        var messages = socket.messages.makeAsyncIterator()
        var sent = 0
        while sent < min(inFlight, count) {
            try await socket.send(.text(text))
            sent += 1
        }
        for _ in 0..<count {
            guard case .text? = try await messages.next() else { throw BenchWebSocketError.unexpected("the echo ended") }
            if sent < count {
                try await socket.send(.text(text))
                sent += 1
            }
        }
    }

    // MARK: Opening

    private func open(_ server: WebSocketServer) async throws {
        var results: [[Double]] = []
        for _ in 0..<rounds {
            let service = Self.service(server)
            let clients: [(Int, Int) async throws -> Double] = [
                { count, _ in try await Self.timed { for _ in 0..<count { try await Self.openKit(service) } } },
                { count, _ in try await Self.timed { for _ in 0..<count { try await Self.openBare(server) } } },
            ]
            for client in clients { _ = try await client(20, 1) }
            results.append(try await interleavedRound(count: opens, inFlight: 1, clients))
        }
        report("open to first message x\(opens)", results, count: opens, unit: "connections/s")
    }

    /// 2,000 connections opened to their first message and closed by one client, timed.
    private func openAlone(_ server: WebSocketServer, kit: Bool) async throws {
        let count = 2_000
        let service = Self.service(server)
        let seconds = try await Self.timed {
            for _ in 0..<count {
                if kit { try await Self.openKit(service) } else { try await Self.openBare(server) }
            }
        }
        print(String(format: "%@: %d connections in %.1f ms (%.0f µs each)", kit ? "kit" : "bare", count, seconds * 1000,
                     seconds / Double(count) * 1e6))
    }

    /// One connection through the kit: opened on `/session`, its first message read, closed.
    private static func openKit(_ service: Service) async throws {
        let socket = try await service.send(.webSocket(path: "/session"))
        var messages = socket.messages.makeAsyncIterator()
        guard try await messages.next() != nil else { throw BenchWebSocketError.unexpected("no first message") }
        await socket.close()
    }

    /// The same with the bare client.
    private static func openBare(_ server: WebSocketServer) async throws {
        let socket = try await BareWebSocket.open(port: server.port, path: "/session")
        _ = try await socket.next()
        await socket.closeAndWait()
    }

    // MARK: Memory

    /// 16,384 messages of 64 KiB from `/flood`, read by a consumer that sums each message's bytes
    /// and sleeps 1 ms every 64 messages: slower than loopback delivers them.
    private func slowConsumer(_ server: WebSocketServer) async throws {
        let count = 16_384, bytes = 65_536
        let service = Self.service(server)
        guard ResidentMemory.resetPeak(), let before = ResidentMemory.current else {
            print("1 GiB to a slow consumer: cannot read this process's peak memory (/proc/self)")
            return
        }
        let started = ContinuousClock.now
        let socket = try await service.send(.webSocket(path: "/flood?count=\(count)&bytes=\(bytes)"))
        var messages = socket.messages.makeAsyncIterator()
        var received = 0, checksum = 0
        while received < count, case .binary(let data)? = try await messages.next() {
            checksum &+= data.reduce(0) { $0 &+ Int($1) }
            received += 1
            if received % 64 == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
        await socket.close()
        let seconds = Self.seconds(started.duration(to: .now))
        let growth = Double((ResidentMemory.peak ?? before) - before) / 1_048_576
        print(String(format: "1 GiB as %d messages of 64 KiB to a slow consumer: %d received in %.1f s (%.0f MiB/s), "
                     + "peak RSS growth %.1f MiB (bound: < 64 MiB; checksum %d)",
                     count, received, seconds, Double(received * bytes) / 1_048_576 / seconds, growth, checksum))
    }

    // MARK: Support

    private static func service(_ server: WebSocketServer) -> Service {
        Service(configuration: ServiceConfiguration(baseURL: URL(string: "http://127.0.0.1:\(server.port)")),
                transport: NIOTransport())
    }

    private func report(_ label: String, _ results: [[Double]], count: Int, unit: String) {
        let median = medianRound(results)
        let ratios = results.map { $0[0] / $0[1] }.sorted()
        print(String(format: "%@: NetworkKit %.0f %@, bare NIOWebSocket %.0f %@; ratio %.2f (rounds %.2f to %.2f; bound ≤ 1.10)",
                     label, Double(count) / median[0], unit, Double(count) / median[1], unit,
                     median[0] / median[1], ratios.first ?? 0, ratios.last ?? 0))
    }

    static func timed(_ body: () async throws -> Void) async throws -> Double {
        let started = ContinuousClock.now
        try await body()
        return seconds(started.duration(to: .now))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// What went wrong in a WebSocket benchmark.
enum BenchWebSocketError: Error, CustomStringConvertible {
    case unexpected(String)
    var description: String {
        switch self { case .unexpected(let what): "unexpected: \(what)" }
    }
}

/// The baseline: a WebSocket client on SwiftNIO's frames and nothing else. Used by one task.
final class BareWebSocket {
    private let channel: any Channel
    private var iterator: AsyncStream<WebSocketFrame>.Iterator

    private init(channel: any Channel, frames: AsyncStream<WebSocketFrame>) {
        self.channel = channel
        iterator = frames.makeAsyncIterator()
    }

    private enum Upgrade: Sendable {
        case upgraded(AsyncStream<WebSocketFrame>)
        case refused
    }

    /// Connects to 127.0.0.1:`port` and upgrades on `path`.
    static func open(port: Int, path: String) async throws -> BareWebSocket {
        let made = NIOLockedValueBox<(any Channel)?>(nil)
        let upgrade: EventLoopFuture<Upgrade> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                made.withLockedValue { $0 = channel }
                return channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade> { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            let (frames, sink) = AsyncStream<WebSocketFrame>.makeStream()
                            try channel.pipeline.syncOperations.addHandler(FrameSink(sink: sink))
                            return .upgraded(frames)
                        }
                    }
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path,
                                               headers: HTTPHeaders([("Host", "127.0.0.1:\(port)")]))
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { $0.eventLoop.makeSucceededFuture(.refused) })
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    // A frame the server sends right behind its 101 can arrive with it.
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                }
            }
        guard case .upgraded(let frames) = try await upgrade.get(), let channel = made.withLockedValue({ $0 }) else {
            throw BenchWebSocketError.unexpected("the bare upgrade was refused")
        }
        return BareWebSocket(channel: channel, frames: frames)
    }

    /// The next frame from the server.
    func next() async throws -> WebSocketFrame {
        guard let frame = await iterator.next() else { throw BenchWebSocketError.unexpected("the bare connection ended") }
        return frame
    }

    func send(_ text: String) async throws {
        let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: channel.allocator.buffer(string: text))
        try await channel.writeAndFlush(frame).get()
    }

    func echo(_ text: String, count: Int, inFlight: Int) async throws {
        var sent = 0
        while sent < min(inFlight, count) {
            try await send(text)
            sent += 1
        }
        for _ in 0..<count {
            _ = try await next()
            if sent < count {
                try await send(text)
                sent += 1
            }
        }
    }

    func close() {
        channel.close(promise: nil)
    }

    /// Sends a close (1000), and returns once the connection ended.
    func closeAndWait() async {
        var payload = channel.allocator.buffer(capacity: 2)
        payload.writeInteger(UInt16(1000))
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: payload)
        try? await channel.writeAndFlush(frame).get()
        try? await channel.closeFuture.get()
    }
}

/// Hands every frame to an `AsyncStream`, and ends it with the connection.
private final class FrameSink: ChannelInboundHandler, Sendable {
    typealias InboundIn = WebSocketFrame
    let sink: AsyncStream<WebSocketFrame>.Continuation

    init(sink: AsyncStream<WebSocketFrame>.Continuation) {
        self.sink = sink
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        sink.yield(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        sink.finish()
        context.fireChannelInactive()
    }
}
