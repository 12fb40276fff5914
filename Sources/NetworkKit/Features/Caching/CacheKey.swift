import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What identifies a cached answer: the method, the URL as built (base or CDN URL, URL filters
/// and common parameters applied), a digest of the body, and the policy's version and
/// sensitive data. Interceptors and the signer run after the key is made: they add per-send
/// credentials (tokens, timestamps, nonces) that would otherwise make every key new, and
/// ``Service/cachedValue(for:)`` can then find an entry without running them.
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

    /// The key of `request` as built, or nil when it cannot be cached (no URL, a body streamed
    /// from a file).
    init?(_ request: URLRequest, policy: CachePolicy) {
        guard let url = request.url, request.httpBodyStream == nil else { return nil }
        self.init(method: request.httpMethod ?? "GET", url: url, body: request.httpBody, policy: policy)
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
