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

    @Option(name: .customLong("cacert"), help: "Trust the certificate authorities in this PEM file instead of the system's, as curl's --cacert.")
    var caCert: String?

    @Option(name: .customLong("pinnedpubkey"),
            help: "Accept only servers whose public key is one of these, as curl's --pinnedpubkey: 'sha256//BASE64[;sha256//BASE64…]'.")
    var pinnedPublicKey: String?

    @Option(name: [.customShort("E"), .customLong("cert")],
            help: "Present this client certificate chain (PEM), as curl's --cert; the key comes from --key, else from the same file.")
    var cert: String?

    @Option(name: .customLong("key"), help: "The private key (PEM) of --cert.")
    var key: String?

    @Flag(name: [.customShort("k"), .customLong("insecure")],
          help: "Do not check the certificate of the URL's host (chain, name, dates), as curl's -k; for development only. Pins still apply.")
    var insecure = false

    @Flag(name: .customLong("http1.1"), help: "Speak HTTP/1.1 only, as curl's --http1.1 (NIO transport).")
    var http11 = false

    @Flag(name: .customLong("http2"),
          help: "Speak HTTP/2 where the server offers it over TLS, else HTTP/1.1, as curl's --http2: the default.")
    var http2 = false

    @Flag(name: .customLong("tlsv1.3"), help: "Use TLS 1.3 or later, as curl's --tlsv1.3 (--tlsv1.2 is the default floor).")
    var tls13 = false

    @Option(name: [.customShort("b"), .customLong("cookie")],
            help: "Send cookies, as curl's -b: 'name=value; name2=value2' sends those with every request; otherwise a cookie file (Netscape format, as curl -c writes) to start the jar with. A missing file starts it empty.")
    var cookie: String?

    @Option(name: [.customShort("c"), .customLong("cookie-jar")],
            help: "Write every cookie the jar holds at the end to FILE (Netscape format, as curl -c; '-' for stdout), failure or not.")
    var cookieJar: String?

    @Option(name: [.customShort("u"), .customLong("user")],
            help: "Send these HTTP Basic credentials, as curl's -u: 'user:password' (with the first request, and again after a Basic challenge).")
    var user: String?

    /// The credentials of `-u`; nil without it.
    func basicCredentials() throws -> BasicCredentials? {
        guard let user else { return nil }
        guard let colon = user.firstIndex(of: ":") else {
            throw ValidationError("-u needs user:password (nk does not prompt for the password)")
        }
        return BasicCredentials(user: String(user[..<colon]), password: String(user[user.index(after: colon)...]))
    }

    /// A service on `transport` with `configuration`, reaching servers as the flags and the
    /// environment say, with the cookies `-b` gives. A setting that cannot be used ends the
    /// command with status 1 and the kit's words on stderr.
    func service(_ transport: TransportChoice, _ configuration: ServiceConfiguration, url: String,
                 recorder: HARRecorder? = nil) throws -> Service {
        var configuration = configuration
        if let credentials = try basicCredentials() {
            configuration.interceptors.append(BasicAuthentication(user: credentials.user, password: credentials.password))
        }
        do {
            if let cookie {
                if cookie.contains("=") {
                    let header = cookie
                    configuration.commonHeaderFields = { [.cookie: header] }
                } else if FileManager.default.fileExists(atPath: cookie) {
                    configuration.cookies = try CookieJar(contentsOf: URL(fileURLWithPath: cookie))
                }
            }
            return try transport.service(configuration, connection: settings(for: URL(string: url)), recorder: recorder)
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

    /// The trust the TLS flags ask for, for requests to `url`.
    func trust(for url: URL?) throws -> TrustSettings {
        var trust = TrustSettings()
        if let caCert { trust.roots = .custom([.file(URL(fileURLWithPath: caCert))]) }
        if let pinnedPublicKey { trust.pinnedKeys = try PublicKeyPin.pins(curlSyntax: pinnedPublicKey) }
        if let cert {
            let chain = URL(fileURLWithPath: cert)
            trust.clientIdentity = ClientIdentity(certificateChain: .file(chain), privateKey: .file(key.map(URL.init(fileURLWithPath:)) ?? chain))
        }
        if tls13 { trust.minimumTLSVersion = .v1_3 }
        if insecure, let host = url?.host {
            trust.insecureHosts = [host]
            FileHandle.standardError.write(Data("nk: warning: the certificate of \(host) is not checked (-k): anyone can pose as it\n".utf8))
        }
        return trust
    }

    /// The connection settings the flags and the environment ask for, for requests to `url`.
    func settings(for url: URL? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ConnectionSettings {
        var proxySettings: ProxySettings
        if let proxy {
            let bypass = try ProxySettings.environment(environment).bypass
            proxySettings = proxy.isEmpty ? .none : .server(try ProxyServer(proxy), bypass: bypass)
        } else {
            proxySettings = try ProxySettings.environment(environment)
        }
        if let noProxy { proxySettings.bypass = ProxyBypass(noProxy) }
        if http11, http2 { throw ValidationError("--http1.1 and --http2 ask for different versions: give one") }
        return ConnectionSettings(proxy: proxySettings, trust: try trust(for: url),
                                  httpVersions: http11 ? .http1Only : .http2WhenOffered)
    }
}
