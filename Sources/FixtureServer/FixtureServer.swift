import Foundation
import Hummingbird
import NIOCore
import Logging
import NetworkKitTesting
import ServiceLifecycle

/// A real HTTP/1.1 server on 127.0.0.1 for tests, the `nk demo` tour and benchmarks.
/// It binds a free port, serves the fixture routes, and stops when asked. Beside it runs a raw
/// TCP server (`rawBaseURL`) whose answers are malformed HTTP on purpose.
///
/// ```swift
/// let server = try await FixtureServer.start()
/// defer { server.stop() }
/// let url = server.url("/json/feed")
/// ```
public final class FixtureServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// `http://127.0.0.1:PORT`.
    public let baseURL: URL
    /// `http://127.0.0.1:PORT` of the raw server, which answers each connection with canned
    /// bytes, then closes it:
    /// - `/raw/garbage-status`: a status line that is not HTTP;
    /// - `/raw/long-body`: `Content-Length: 5`, then more bytes than that;
    /// - `/raw/bad-chunk`: chunked, with a chunk size that is not hexadecimal;
    /// - `/raw/http10-close`: HTTP/1.0 without `Content-Length`, the body ending at the close
    ///   (`{"code": 0, "items": [...]}` with 5,000 items);
    /// - `/raw/many-headers`: 100,000 header fields (about 2 MB);
    /// - `/raw/huge-header`: one header field of 1 MiB.
    public let rawBaseURL: URL
    /// `https://127.0.0.1:PORT` of the raw server's answers over TLS with a self-signed
    /// certificate (`SelfSignedIdentity`), which a client that checks certificates refuses.
    public let selfSignedBaseURL: URL
    private let raw: RawServer
    private let selfSigned: RawServer
    let blobs: BlobStore
    private let scripts: ScriptStore
    private let scriptBodies: NamedStore<[Int]>
    /// Hits per key of the counting routes (`/count/KEY`, `/flaky/KEY`).
    public let hits: HitCounter
    /// Runs the HTTP server, and stops it gracefully.
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, raw: RawServer, selfSigned: RawServer, blobs: BlobStore, scripts: ScriptStore,
                 scriptBodies: NamedStore<[Int]>, hits: HitCounter, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.raw = raw
        self.selfSigned = selfSigned
        self.blobs = blobs
        self.scripts = scripts
        self.scriptBodies = scriptBodies
        self.hits = hits
        self.group = group
        self.task = task
        baseURL = Self.loopback(port)
        rawBaseURL = Self.loopback(raw.port)
        selfSignedBaseURL = Self.loopback(selfSigned.port, scheme: "https")
    }

    private static func loopback(_ port: Int, scheme: String = "http") -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)")!  // a literal loopback URL with a number: always valid
    }

    /// Starts a server on a free loopback port and returns once it accepts connections.
    /// `signatureVerifier` checks the signatures `/signed` receives.
    public static func start(signatureVerifier: SignatureVerifier? = nil) async throws -> FixtureServer {
        let blobs = BlobStore()
        let scripts = ScriptStore()
        let scriptBodies = NamedStore<[Int]>()
        let hits = HitCounter()
        let router = Router()
        FixtureRoutes.add(to: router, blobs: blobs, hits: hits, verifier: signatureVerifier)
        FixtureRoutes.addScripted(to: router, scripts: scripts, received: scriptBodies)
        var logger = Logger(label: "FixtureServer")
        logger.logLevel = .critical
        let running = try await ServerLaunch.start(logger: logger) { onServerRunning in
            Application(
                router: router,
                configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "NetworkKit-Fixture"),
                onServerRunning: onServerRunning,
                logger: logger
            )
        }
        let (port, group, task) = (running.port, running.group, running.task)
        let raw: RawServer, selfSigned: RawServer
        do {
            raw = try await RawServer.start()
        } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
        do {
            selfSigned = try await RawServer.start(tls: SelfSignedIdentity.context())
        } catch {
            await group.triggerGracefulShutdown()
            raw.stop()
            throw error
        }
        return FixtureServer(port: port, raw: raw, selfSigned: selfSigned, blobs: blobs, scripts: scripts,
                             scriptBodies: scriptBodies, hits: hits, group: group, task: task)
    }

    /// Stops the server and the raw servers: they accept no more connections, and the HTTP
    /// server closes each open one once its current answer is written. It drains what it had
    /// accepted: a connection still queued for its accept loop is served and closed too, never
    /// dropped, so stopping cannot take the process down. Every test that starts a server
    /// stops it.
    ///
    /// A graceful shutdown, not a cancelled task: a connection dropped from the accept queue
    /// when the server's task is cancelled traps the process in NIO ("Deinited NIOAsyncWriter
    /// without calling finish()", apple/swift-nio#3481).
    public func stop() {
        let group = self.group
        Task { await group.triggerGracefulShutdown() }
        raw.stop()
        selfSigned.stop()
    }

    /// Stops the servers as `stop()` does and returns once the HTTP server has closed its
    /// listening socket and its connections.
    public func stopAndWait() async {
        stop()
        _ = await task.result
    }

    /// The absolute URL of `path` (which may carry a query) on this server.
    public func url(_ path: String) -> String {
        Self.join(baseURL, path)
    }

    /// The absolute URL of `path` on the raw server (see `rawBaseURL`).
    public func rawURL(_ path: String) -> String {
        Self.join(rawBaseURL, path)
    }

    private static func join(_ base: URL, _ path: String) -> String {
        base.absoluteString + (path.hasPrefix("/") ? path : "/" + path)
    }

    /// Plays `script` over the wire at `/scripted/NAME`, to any method, as a `StubTransport`
    /// plays it in memory; returns that path. A `.failure` fault has no server side: its route
    /// answers 501.
    @discardableResult
    public func play(_ script: StubResponse, as name: String) -> String {
        scripts.put(name, script)
        return "/scripted/" + name
    }

    /// The body lengths of the requests `/scripted/NAME` received, in order.
    public func bodyLengths(receivedBy name: String) -> [Int] {
        scriptBodies.get(name) ?? []
    }

    /// Serves `data` at `/blob/NAME` with the given `Content-Type` (none when nil).
    /// `?type=` on the request overrides it (`?type=none` omits it); `?encoding=` sets `Content-Encoding`.
    public func publish(_ data: Data, as name: String, contentType: String?) {
        blobs.put(name, Blob(data: data, contentType: contentType))
    }
}

/// Why the fixture server did not start.
public enum FixtureServerError: Error {
    /// No port was reported by the listener.
    case couldNotBind
}

struct Blob: Sendable {
    var data: Data
    var contentType: String?
}

/// Values by name (the published blobs, the scripted answers).
///
/// `@unchecked Sendable`: `values` is only read and written while holding `lock`.
final class NamedStore<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Value] = [:]

    func put(_ name: String, _ value: Value) {
        lock.withLock { values[name] = value }
    }

    func get(_ name: String) -> Value? {
        lock.withLock { values[name] }
    }

    /// Changes the value of `name` (nil when there is none) in one step.
    func update(_ name: String, _ change: (inout Value?) -> Void) {
        lock.withLock { change(&values[name]) }
    }
}

/// Published blobs by name.
typealias BlobStore = NamedStore<Blob>
