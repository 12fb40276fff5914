import FixtureServer
import Foundation
import NetworkKit
import NetworkKitNIO

/// `nk demo`: a cookie login kept by the service's jar, and a request through a proxy.
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
                    let pinned = Service(configuration: ServiceConfiguration(timeout: 15),
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
