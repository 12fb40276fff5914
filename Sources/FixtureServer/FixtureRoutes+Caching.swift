import Foundation
import Hummingbird
import NIOCore

extension FixtureRoutes {
    /// `GET /cache/{key}`: a cacheable JSON answer that counts its hits, for the response cache.
    ///
    /// Answers `{"code": 0, "hit": N, "version": V, "pad": "…"}`. Query: `etag=` and `modified=1`
    /// send validators (`ETag`, `Last-Modified`) and answer a matching conditional request with
    /// `304` (counted under `KEY/304` as well); `version=` changes the body and the ETag;
    /// `cacheControl=` sends that `Cache-Control`; `code=` sets the business code; `pad=` adds
    /// that many bytes of padding and `items=` that many feed items (~140 bytes each).
    static func addCaching(to router: Router<BasicRequestContext>, hits: HitCounter) {
        router.get("cache/{key}") { request, context in
            let key = context.parameters.get("key") ?? ""
            let hit = hits.increment(key)
            let version = query(request, "version") ?? "1"
            var headers: HTTPFields = [:]
            let etag = query(request, "etag").map { "\"\($0)-\(version)\"" }
            if let etag { headers[.eTag] = etag }
            let modified = "Mon, 02 Nov 2026 10:00:00 GMT"
            if query(request, "modified") == "1" { headers[.lastModified] = modified }
            if let control = query(request, "cacheControl") { headers[.cacheControl] = control }
            let matches = (etag != nil && request.headers[.ifNoneMatch] == etag)
                || (query(request, "modified") == "1" && request.headers[.ifModifiedSince] == modified)
            if matches {
                _ = hits.increment(key + "/304")
                return Response(status: .notModified, headers: headers)
            }
            let code = query(request, "code") ?? "0"
            let pad = String(repeating: "x", count: min(Int(query(request, "pad") ?? "") ?? 0, 1 << 20))
            let count = min(Int(query(request, "items") ?? "") ?? 0, 10_000)
            let items = (0..<count).map { index in
                #"{"id": \#(index), "name": "Item number \#(index)", "price": \#(Double(index) * 1.25), "tags": ["new", "t\#(index % 7)"], "isFlagship": \#(index % 3 == 0), "pic": "https://cdn.example.com/p/\#(index).jpg"}"#
            }
            let body = #"{"code": \#(code), "hit": \#(hit), "version": "\#(version)", "pad": "\#(pad)", "items": [\#(items.joined(separator: ", "))]}"#
            return respond(contentType: "application/json", body: Data(body.utf8), extraHeaders: headers)
        }
    }
}
