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

    @Option(name: [.customShort("b"), .customLong("cookie")],
            help: "Send cookies, as curl's -b: 'name=value; name2=value2' sends those with every request; otherwise a cookie file (Netscape format, as curl -c writes) to start the jar with. A missing file starts it empty.")
    var cookie: String?

    @Option(name: [.customShort("c"), .customLong("cookie-jar")],
            help: "Write every cookie the jar holds at the end to FILE (Netscape format, as curl -c; '-' for stdout), failure or not.")
    var cookieJar: String?

    /// A service on `transport` with `configuration`, reaching servers as the flags and the
    /// environment say, with the cookies `-b` gives. A setting that cannot be used ends the
    /// command with status 1 and the kit's words on stderr.
    func service(_ transport: TransportChoice, _ configuration: ServiceConfiguration) throws -> Service {
        var configuration = configuration
        do {
            if let cookie {
                if cookie.contains("=") {
                    let header = cookie
                    configuration.commonHeaders = { ["Cookie": header] }
                } else if FileManager.default.fileExists(atPath: cookie) {
                    configuration.cookies = try CookieJar(contentsOf: URL(fileURLWithPath: cookie))
                }
            }
            return try transport.service(configuration, connection: settings())
        } catch {
            FileHandle.standardError.write(Data("nk: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Writes the service's cookies where `-c` says, if it says; a file that cannot be written
    /// is reported on stderr.
    func saveCookies(of service: Service) {
        guard let cookieJar, let jar = service.configuration.cookies else { return }
        do {
            if cookieJar == "-" {
                FileHandle.standardOutput.write(Data(jar.netscapeText().utf8))
            } else {
                try jar.write(to: URL(fileURLWithPath: cookieJar))
            }
        } catch {
            FileHandle.standardError.write(Data("nk: cannot write the cookie jar: \(error)\n".utf8))
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
