import Foundation

extension ProxySettings {
    /// The proxies the environment names, by curl's rules:
    /// - `http_proxy` for `http:` URLs (lower case only: a CGI program gets `HTTP_PROXY` from a
    ///   request header, so curl ignores it);
    /// - `https_proxy`, else `HTTPS_PROXY`, for `https:` URLs;
    /// - `all_proxy`, else `ALL_PROXY`, for a scheme without a proxy of its own;
    /// - `no_proxy`, else `NO_PROXY`, as the bypass list (see ``ProxyBypass``).
    ///
    /// An empty variable counts as unset. Throws `NetworkError.invalidRequest` naming the variable
    /// when a proxy cannot be read.
    public static func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(NetworkError) -> ProxySettings {
        func value(_ names: String...) -> (name: String, value: String)? {
            for name in names {
                if let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty {
                    return (name, value)
                }
            }
            return nil
        }
        func server(_ found: (name: String, value: String)?) throws(NetworkError) -> ProxyServer? {
            guard let found else { return nil }
            do {
                return try ProxyServer(found.value)
            } catch {
                guard case .invalidRequest(let reason) = error else { throw error }
                throw .invalidRequest("\(found.name): \(reason)")
            }
        }
        let all = try server(value("all_proxy", "ALL_PROXY"))
        let http = try server(value("http_proxy")) ?? all
        let https = try server(value("https_proxy", "HTTPS_PROXY")) ?? all
        let bypass = ProxyBypass(value("no_proxy", "NO_PROXY")?.value ?? "")
        return ProxySettings(http: http, https: https, bypass: bypass)
    }
}
