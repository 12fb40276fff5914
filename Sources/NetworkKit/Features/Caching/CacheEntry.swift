import Foundation

/// One stored answer: the raw body and what the parser chain needs besides (status, headers,
/// URL), plus when it was stored. The full key is kept so a hash collision of file names is
/// caught instead of answering another request.
struct CacheEntry: Sendable {
    var key: String
    var url: URL?
    var statusCode: Int
    var headers: [String: String]
    var body: Data
    var storedAt: Date

    /// What parsers see, as if the server had just sent it (without an envelope).
    var response: Response {
        Response(url: url, statusCode: statusCode, headers: headers, data: body)
    }

    /// How much memory the entry holds, roughly: the body plus its headers.
    var cost: Int {
        body.count + key.utf8.count + headers.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }

    /// The `max-age` and `no-cache` of `Cache-Control`, and `ETag` / `Last-Modified`.
    var directives: CacheControl { CacheControl(headers: headers) }

    /// Whether it is still fresh at `now` under `policy`.
    func isFresh(at now: Date, policy: CachePolicy) -> Bool {
        let lifetime: Duration
        if policy.usesHTTPSemantics {
            if directives.noCache { return false }
            lifetime = directives.maxAge.map { .seconds($0) } ?? policy.lifetime
        } else {
            lifetime = policy.lifetime
        }
        return now.timeIntervalSince(storedAt) < lifetime.inSeconds
    }

    /// The headers that turn a request for this entry into a conditional one.
    var conditionalHeaders: [String: String] {
        var headers: [String: String] = [:]
        if let etag = HeaderFields.value("ETag", in: self.headers) { headers["If-None-Match"] = etag }
        if let date = HeaderFields.value("Last-Modified", in: self.headers) { headers["If-Modified-Since"] = date }
        return headers
    }

    /// The entry after a `304 Not Modified` with `head`: stored anew, with the server's updated
    /// headers (RFC 9111 §4.3.4) but the old body and its framing.
    func revalidated(by head: ResponseHead, at now: Date) -> CacheEntry {
        var entry = self
        entry.storedAt = now
        for (name, value) in head.headers where !Self.keepsOwnValue(name) {
            if let existing = entry.headers.keys.first(where: { HeaderFields.sameName($0, name) }) {
                entry.headers[existing] = nil
            }
            entry.headers[name] = value
        }
        return entry
    }

    private static func keepsOwnValue(_ name: String) -> Bool {
        ["Content-Length", "Content-Encoding", "Transfer-Encoding", "Content-Type"].contains { HeaderFields.sameName($0, name) }
    }
}

/// The parts of `Cache-Control` the cache acts on.
struct CacheControl: Equatable {
    var noStore = false
    var noCache = false
    var maxAge: Int?

    init(headers: [String: String]) {
        guard let value = HeaderFields.value("Cache-Control", in: headers) else { return }
        for directive in value.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            guard let first = parts.first else { continue }
            let name = first.trimmingCharacters(in: .whitespaces).lowercased()
            let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: CharacterSet(charactersIn: " \"")) : nil
            switch name {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "max-age": maxAge = argument.flatMap { Int($0) }.map { max(0, $0) }
            default: break
            }
        }
    }
}
