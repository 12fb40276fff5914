import Foundation

/// One stored answer: the raw body and what the parser chain needs besides (status, header
/// fields, URL), plus when it was stored. The full key is kept so a hash collision of file names is
/// caught instead of answering another request.
struct CacheEntry: Sendable {
    var key: String
    var url: URL?
    var status: HTTPResponse.Status
    var headerFields: HTTPFields
    var body: Data
    var storedAt: Date

    /// What parsers see, as if the server had just sent it (without an envelope).
    var response: Response {
        Response(url: url, status: status, headerFields: headerFields, data: body)
    }

    /// How much memory the entry holds, roughly: the body plus its header fields.
    var cost: Int {
        body.count + key.utf8.count + headerFields.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count }
    }

    /// The `max-age` and `no-cache` of `Cache-Control`, and `ETag` / `Last-Modified`.
    var directives: CacheControl { CacheControl(headerFields) }

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

    /// The fields that turn a request for this entry into a conditional one.
    var conditionalHeaderFields: HTTPFields {
        var fields = HTTPFields()
        if let etag = headerFields[.eTag] { fields[.ifNoneMatch] = etag }
        if let date = headerFields[.lastModified] { fields[.ifModifiedSince] = date }
        return fields
    }

    /// The entry after a `304 Not Modified` with `head`: stored anew, each field the server
    /// sent replacing the stored fields of its name (RFC 9111 §4.3.4), but the old body and
    /// its framing.
    func revalidated(by head: ResponseHead, at now: Date) -> CacheEntry {
        var entry = self
        entry.storedAt = now
        var replaced = Set<HTTPField.Name>()
        for field in head.headerFields where !Self.keepsOwnValue(field.name) && replaced.insert(field.name).inserted {
            entry.headerFields[fields: field.name] = head.headerFields[fields: field.name]
        }
        return entry
    }

    private static func keepsOwnValue(_ name: HTTPField.Name) -> Bool {
        [.contentLength, .contentEncoding, .transferEncoding, .contentType].contains(name)
    }
}

/// The parts of `Cache-Control` the cache acts on.
struct CacheControl: Equatable {
    var noStore = false
    var noCache = false
    var maxAge: Int?

    init(_ headerFields: HTTPFields) {
        guard let value = headerFields[.cacheControl] else { return }
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
