import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What identifies a cached answer: the method, the URL as built (base or CDN URL, URL filters
/// and common parameters applied), a digest of the body, and the policy's version and
/// sensitive data. Interceptors and the signer run after the key is made: they add per-send
/// credentials (tokens, timestamps, nonces) that would otherwise make every key new, and
/// ``Service/cachedValue(for:)`` can then find an entry without running them. Ignored
/// arguments are left out: query items of that name, and the keys of a form
/// (`application/x-www-form-urlencoded`) or JSON object body.
struct CacheKey: Hashable, Sendable {
    /// The full key, stored inside each entry and compared on every read.
    let text: String

    init(method: String, url: URL, body: Data?, policy: CachePolicy) {
        var text = "\(method) \(url.absoluteString)"
        if let body, !body.isEmpty { text += " body:\(body.count):\(Self.digest(body))" }
        text += " v\(policy.version)"
        if let sensitive = policy.sensitiveData { text += " s:\(sensitive)" }
        self.text = text
    }

    /// The key of `request` as built, without the arguments in `ignoring`, or nil when it cannot
    /// be cached (no URL, a body streamed from a file or made as it is sent).
    init?(_ request: OutgoingRequest, policy: CachePolicy, ignoring: Set<String> = []) {
        guard var url = request.url, request.bodyFile == nil, request.bodyStream == nil else { return nil }
        var body = request.bodyData
        if !ignoring.isEmpty {
            url = Self.url(url, ignoring: ignoring)
            body = body.map { Self.body($0, contentType: request.head.headerFields[.contentType], ignoring: ignoring) }
        }
        self.init(method: request.head.method.rawValue, url: url, body: body, policy: policy)
    }

    /// `url` without the query items named in `ignoring`.
    static func url(_ url: URL, ignoring: Set<String>) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let items = components.percentEncodedQueryItems else { return url }
        let kept = items.filter { !ignoring.contains($0.name.removingPercentEncoding ?? $0.name) }
        guard kept.count != items.count else { return url }
        components.percentEncodedQueryItems = kept.isEmpty ? nil : kept
        return components.url ?? url
    }

    /// `body` without the keys named in `ignoring`: the pairs of a form, the top-level members
    /// of a JSON object (written again with sorted keys). Other bodies are kept as they are.
    static func body(_ body: Data, contentType: String?, ignoring: Set<String>) -> Data {
        let type = contentType?.lowercased() ?? ""
        if type.hasPrefix("application/x-www-form-urlencoded") {
            let pairs = String(decoding: body, as: UTF8.self).split(separator: "&", omittingEmptySubsequences: false)
            let kept = pairs.filter { pair in
                let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                return !ignoring.contains(name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name)
            }
            return Data(kept.joined(separator: "&").utf8)
        }
        if type.contains("json"), FoundationJSONInput.isSafe(body), var object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
            for name in ignoring { object[name] = nil }
            return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? body
        }
        return body
    }

    /// The entry's file name: a hash of the key (the key itself is checked inside the file).
    var fileName: String {
        FNV1a.hex(text) + ".nkcache"
    }

    /// FNV-1a and CRC-32 of the body: 96 bits, with the length besides.
    private static func digest(_ body: Data) -> String {
        let fnv = FNV1a.hash(body)
        return String(fnv, radix: 16) + String(CRC32.checksum(body), radix: 16)
    }
}
