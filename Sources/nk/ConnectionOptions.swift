import ArgumentParser
import Foundation
import NetworkKit

/// curl's connection flags, with curl's meanings, for the commands that fetch URLs.
struct ConnectionOptions: ParsableArguments {
    @Option(name: [.customShort("x"), .customLong("proxy")],
            help: "Send through this proxy, as curl's --proxy: [scheme://][user:password@]host[:port] (http, socks5, socks5h; port 1080 when missing). \"\" turns off the proxies of the environment (http_proxy, https_proxy, all_proxy), which are used otherwise.")
    var proxy: String?

    @Option(name: .customLong("noproxy"),
            help: "Hosts to reach without the proxy, as curl's --noproxy: names (a name covers its subdomains), IP addresses and CIDR ranges, comma-separated; \"*\" for all. Replaces no_proxy.")
    var noProxy: String?

    /// A service on `transport` with `configuration`, reaching servers as the flags and the
    /// environment say. A setting that cannot be used ends the command with status 1 and the
    /// kit's words on stderr.
    func service(_ transport: TransportChoice, _ configuration: ServiceConfiguration) throws -> Service {
        do {
            return try transport.service(configuration, connection: settings())
        } catch {
            FileHandle.standardError.write(Data("nk: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// The connection settings the flags and the environment ask for.
    func settings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ConnectionSettings {
        var proxySettings: ProxySettings
        if let proxy {
            let bypass = try ProxySettings.environment(environment).bypass
            proxySettings = proxy.isEmpty ? .none : .server(try ProxyServer(proxy), bypass: bypass)
        } else {
            proxySettings = try ProxySettings.environment(environment)
        }
        if let noProxy { proxySettings.bypass = ProxyBypass(noProxy) }
        return ConnectionSettings(proxy: proxySettings)
    }
}
