import Foundation
import Hummingbird

extension FixtureRoutes {
    /// A paged list for `Pager` tests and the demo.
    ///
    /// `GET /pages/KEY?page=N&size=S&total=T&style=total|hasMore|short&failOnce=P` answers
    /// `{"code": 0, "data": {"items": [{"id": 1, "title": "Item 1"}, …], "total": T}}`: the items of
    /// page N (numbered from `first`, 1 unless said) of a list of T items (45 unless said), S per
    /// page (10 unless said), ids from 1. `style=hasMore` sends `"hasMore": bool` instead of the
    /// total, `style=short` neither. With `offset=` the page starts there instead. `pageParam=`,
    /// `offsetParam=` and `sizeParam=` rename those parameters. The page at position P in the list
    /// (1 for the first) fails once with 503. Every hit counts under KEY, and under KEY@OFFSET for
    /// the page starting at OFFSET (`/hits/KEY@20`).
    static func addPaging(to router: Router<BasicRequestContext>, hits: HitCounter) {
        router.get("pages/{key}") { request, context in
            let key = context.parameters.get("key") ?? ""
            let number = { (name: String, fallback: Int) in Int(query(request, name) ?? "") ?? fallback }
            let size = max(1, number(query(request, "sizeParam") ?? "size", 10))
            let total = max(0, number("total", 45))
            let offset: Int
            if let offsetValue = query(request, query(request, "offsetParam") ?? "offset") {
                offset = max(0, Int(offsetValue) ?? 0)
            } else {
                let first = number("first", 1)
                offset = max(0, number(query(request, "pageParam") ?? "page", first) - first) * size
            }
            _ = hits.increment(key)
            _ = hits.increment("\(key)@\(offset)")
            if let failing = query(request, "failOnce").flatMap(Int.init), offset / size + 1 == failing,
               hits.increment("\(key)#failed") == 1 {
                return json(#"{"error": "page \#(failing) fails once"}"#, status: .serviceUnavailable)
            }
            let ids = offset < total ? Array(offset + 1...min(offset + size, total)) : []
            let items = ids.map { #"{"id": \#($0), "title": "Item \#($0)"}"# }.joined(separator: ", ")
            let end: String
            switch query(request, "style") ?? "total" {
            case "hasMore": end = #", "hasMore": \#(offset + size < total)"#
            case "short": end = ""
            default: end = #", "total": \#(total)"#
            }
            return json(#"{"code": 0, "data": {"items": [\#(items)]\#(end)}}"#)
        }
    }
}
