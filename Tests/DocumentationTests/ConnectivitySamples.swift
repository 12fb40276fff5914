import Foundation
import NetworkKit
import NetworkKitNIO

// MARK: - Proxies, trust and cookies

func companyProxy() throws -> Service {
    let proxy = try ProxyServer("http://ann:secret@proxy.corp.example:3128")
    let settings = ConnectionSettings(proxy: .server(proxy, bypass: ProxyBypass("localhost, .corp.example, 10.0.0.0/8")))
    return Service(transport: try NIOTransport(connection: settings))
}

func proxyFromEnvironment() throws -> Service {
    let settings = ConnectionSettings(proxy: try .environment())
    return try Service(connection: settings)
}

func privateCA(caFile: URL) throws -> Service {
    var trust = TrustSettings(roots: .systemAnd([.file(caFile)]))
    trust.pinnedKeys = try PublicKeyPin.pins(curlSyntax: "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE=")
    trust.minimumTLSVersion = .v1_3
    return Service(transport: try NIOTransport(connection: ConnectionSettings(trust: trust)))
}

func mutualTLS(certificate: URL, key: URL) throws -> TrustSettings {
    var trust = TrustSettings()
    trust.hosts["payments.example.com"] = TrustSettings(
        clientIdentity: ClientIdentity(certificateChain: .file(certificate), privateKey: .file(key)))
    trust.insecureHosts = ["dev.local"]
    return trust
}

func keepCookies(service: Service, jarFile: URL) async throws {
    if FileManager.default.fileExists(atPath: jarFile.path) {
        try service.configuration.cookies?.load(from: jarFile)
    }
    _ = try await service.send(Request(path: "/login", method: .post, parameters: ["user": "ann"]))
    try service.configuration.cookies?.write(to: jarFile)
}

func withoutCookies() -> Request<Data> {
    let probe = Request(path: "/health")
    probe.usesCookies = false
    return probe
}

func explainFailure(_ error: NetworkError) -> String {
    switch error {
    case .connection(.tls(let host, .pinMismatch(let presented))):
        return "\(host) presented sha256//\(presented), which is not pinned"
    case .connection(.proxyAuthenticationRequired(let proxy)):
        return "\(proxy) wants credentials"
    case .connection(.unsupported(let feature, let transport)):
        return "\(transport) cannot do \(feature)"
    default:
        return error.description
    }
}
