import FixtureServer
import Foundation
import NetworkKit
import NetworkKitNIO

/// `nk demo`: a pinned server, a server that rotates its HTTP/2 connections, a cookie login kept
/// by the service's jar, and a request through a proxy.
extension DemoTour {
    var connectivitySteps: [Step] {
        [
            ("A pinned server: its public key among the pins passes, a server with another key fails naming it", {
                let certificates = try TestCertificates.make()
                defer { certificates.remove() }
                let server = try await TLSFixtureServer.start(presenting: certificates.server)
                defer { server.stop() }
                func fetch(pins: [String]) async throws -> Result<String, NetworkError> {
                    let trust = TrustSettings(roots: .custom([.file(certificates.ca.certificateFile)]),
                                              pinnedKeys: try pins.map { try PublicKeyPin(sha256Base64: $0) })
                    let pinned = Service(configuration: ServiceConfiguration(timeout: .seconds(15)),
                                         transport: try NIOTransport(connection: ConnectionSettings(trust: trust)))
                    return await pinned.result(of: Request(url: server.helloURL(), parser: StringParser()))
                }
                let passed = try await fetch(pins: [certificates.otherCA.publicKeyPin, certificates.server.publicKeyPin]).get()
                guard case .failure(let refused) = try await fetch(pins: [certificates.otherCA.publicKeyPin]) else {
                    throw DemoError.unexpected("a server with an unpinned key was let through")
                }
                return "pinned sha256//\(certificates.server.publicKeyPin.prefix(12))… → \"\(passed.trimmingCharacters(in: .whitespacesAndNewlines))\"; "
                    + "pinned another key → \(refused)"
            }),
            ("HTTP/2 connection rotation: a GOAWAY every 100 streams, 300 GETs at 16 in flight, none lost", {
                let certificates = try TestCertificates.make()
                defer { certificates.remove() }
                let server = try await RotatingServer.start(presenting: certificates.server,
                                                            behaviour: .init(goAwayAfterStreams: 100))
                let resends = RotationCount()
                var configuration = ServiceConfiguration(timeout: .seconds(15))
                configuration.eventMonitors = [resends]
                let trust = TrustSettings(roots: .custom([.file(certificates.ca.certificateFile)]))
                let rotating = Service(configuration: configuration,
                                       transport: try NIOTransport(connection: ConnectionSettings(trust: trust)))
                let answered = await withTaskGroup(of: Bool.self) { group in
                    var answered = 0
                    for id in 0..<300 {
                        if id >= 16, await group.next() == true { answered += 1 }
                        group.addTask {
                            let request = Request(url: server.url("/rotate/hello?id=\(id)"), parser: JSONParser())
                            return (try? await rotating.send(request)) != nil
                        }
                    }
                    return await group.reduce(answered) { $0 + ($1 ? 1 : 0) }
                }
                let counts = server.counts
                await server.stop()
                guard answered == 300 else { throw DemoError.unexpected("\(300 - answered) of 300 requests lost") }
                return "300 of 300 answered over \(resends.versions) on \(counts.connections) connections "
                    + "(\(counts.goAways) GOAWAYs); \(resends.count) sent again, unprocessed; each processed once: "
                    + "\(counts.processedIDs.count == 300 && counts.processedIDs.values.allSatisfy { $0 == 1 })"
            }),
            ("Cookie login: the jar keeps the session cookie and sends it from then on", {
                let refused = await service.result(of: Request(path: "/cookies/private", parser: JSONParser()))
                guard case .failure(.httpStatus(401, _, _)) = refused else { throw DemoError.unexpected("\(refused)") }
                _ = try await service.send(Request(path: "/cookies/login?user=ann&password=secret", parser: JSONParser()))
                let answer = try await service.send(Request(path: "/cookies/private", parser: JSONParser(contentKeyPath: "user")))
                let cookie = service.configuration.cookies?.allCookies.first { $0.name == "session" }
                return "before login: 401; after: user \(answer) with cookie "
                    + "\(cookie.map { "\($0.name)=\($0.value) (HttpOnly \($0.httpOnly), host-only \($0.hostOnly))" } ?? "none")"
            }),
            ("Through a forward proxy with Basic credentials; a wrong password is the proxy's 407", {
                let proxy = try await ForwardProxy.start(user: "ann", password: "s3cret")
                defer { proxy.stop() }
                func service(password: String) throws -> Service {
                    let server = ProxyServer(host: "127.0.0.1", port: proxy.port,
                                             credentials: ProxyCredentials(user: "ann", password: password))
                    return Service(configuration: ServiceConfiguration(baseURL: self.server.baseURL),
                                   transport: try NIOTransport(connection: ConnectionSettings(proxy: .server(server))))
                }
                let answer = try await service(password: "s3cret").send(Request(path: "/echo", parser: JSONParser(contentKeyPath: "path")))
                let refused = try await service(password: "wrong").result(of: Request(path: "/echo"))
                guard case .failure(let error) = refused else { throw DemoError.unexpected("\(refused)") }
                return "\(proxy.entries.first.map { "\($0.method) \($0.target)" } ?? "nothing") → path \(answer); then: \(error)"
            }),
        ]
    }
}

/// Counts the attempts a service sent again because the server did not process them, and the
/// versions of HTTP its answers came over.
final class RotationCount: EventMonitor {
    private let state = Protected((count: 0, versions: Set<String>()))
    var count: Int { state.withLock { $0.count } }
    var versions: String { state.withLock { $0.versions.sorted().joined(separator: ", ") } }

    func request(_ id: RequestID, willResendUnprocessed attempt: Int, error: NetworkError) {
        state.withLock { $0.count += 1 }
    }

    func request(_ id: RequestID, didReceive head: ResponseHead, attempt: Int) {
        if let version = head.httpVersion { state.withLock { _ = $0.versions.insert(version.description) } }
    }
}
