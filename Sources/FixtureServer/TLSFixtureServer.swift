import Foundation
import Hummingbird
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// An HTTPS server on 127.0.0.1 for the trust tests and benchmarks: it presents one of
/// ``TestCertificates``' identities and answers `GET /tls/hello` with `{"ok":true}` (and any other
/// path with 404). With a client CA it requires a client certificate that CA signed (mutual
/// TLS); with `upToTLS12` it speaks nothing newer than TLS 1.2.
///
/// ```swift
/// let certificates = try TestCertificates.make()
/// defer { certificates.remove() }
/// let server = try await TLSFixtureServer.start(presenting: certificates.server)
/// defer { server.stop() }
/// ```
public final class TLSFixtureServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// Runs the server, and stops it gracefully.
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.group = group
        self.task = task
    }

    /// `https://HOST:PORT/tls/hello`, with 127.0.0.1 as the host unless given (`localhost`
    /// reaches the same server under another name).
    public func helloURL(host: String = "127.0.0.1") -> String {
        "https://\(host):\(port)/tls/hello"
    }

    /// Starts a server presenting `identity` (its certificate and the CA that signed it are not
    /// sent as a chain: the leaf alone) and returns once it accepts connections. `clientCA`
    /// makes it require a client certificate signed by that CA; `upToTLS12` caps the protocol
    /// version at TLS 1.2.
    public static func start(presenting identity: TestIdentity, clientCA: TestIdentity? = nil,
                             upToTLS12: Bool = false) async throws -> TLSFixtureServer {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(identity.certificatePEM.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.keyPEM.utf8), format: .pem))
        )
        if upToTLS12 { tls.maximumTLSVersion = .tlsv12 }
        if let clientCA {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(clientCA.certificatePEM.utf8)))
            tls.certificateVerification = .noHostnameVerification
        }
        let router = Router()
        router.get("/tls/hello") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: .init(byteBuffer: ByteBuffer(string: #"{"ok":true}"#)))
        }
        var logger = Logger(label: "TLSFixtureServer")
        logger.logLevel = .critical  // refused handshakes are what the tests are about
        let running = try await ServerLaunch.start(logger: logger) { onServerRunning in
            Application(
                router: router,
                server: try .tls(.http1(), tlsConfiguration: tls),
                configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "NetworkKit-TLS-Fixture"),
                onServerRunning: onServerRunning,
                logger: logger
            )
        }
        return TLSFixtureServer(port: running.port, group: running.group, task: running.task)
    }

    /// Stops the server gracefully: no more connections are accepted, and open ones close once
    /// their current answer is written (see `FixtureServer.stop()` for why it is not cancelled).
    public func stop() {
        let group = self.group
        Task { await group.triggerGracefulShutdown() }
    }

    /// Stops the server as ``stop()`` does and returns once it has closed its socket and its
    /// connections.
    public func stopAndWait() async {
        stop()
        _ = await task.result
    }
}
