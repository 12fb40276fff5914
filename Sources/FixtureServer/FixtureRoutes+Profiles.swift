import Foundation
import Hummingbird

extension FixtureRoutes {
    /// `GET /profiles/{id}`: a profile with `snake_case` keys, a date-time and a null, inside the
    /// `{"code", "message", "data"}` envelope, for the generated OpenAPI requests (Examples/FixtureAPI).
    /// `?code=N` answers that business code with the message "no such profile" and no data.
    static func addProfiles(to router: Router<BasicRequestContext>) {
        router.get("profiles/{id}") { request, context in
            let id = Int(context.parameters.get("id") ?? "") ?? 0
            if let code = query(request, "code"), code != "0" {
                return json(#"{"code": \#(Int(code) ?? 1), "message": "no such profile"}"#)
            }
            return json(#"""
                {"code": 0, "message": "ok", "data": {"user_id": \#(id), "display_name": "User \#(id)",
                 "created_at": "2026-11-02T10:00:00Z", "role": "member", "avatar_url": null}}
                """#)
        }
        // `GET /dated?style=iso|seconds`: one record whose date the two backends of an app write
        // each its own way, ISO 8601 text or seconds since 1970, inside the envelope (`&list=1`:
        // a list of it, twice); `/dated/lines?style=` the same record twice as JSON Lines.
        router.get("dated") { request, _ in
            let record = datedRecord(style: query(request, "style"))
            return json(#"{"code": 0, "data": \#(query(request, "list") == "1" ? "[\(record), \(record)]" : record)}"#)
        }
        router.get("dated/lines") { request, _ in
            let record = datedRecord(style: query(request, "style"))
            return Response(status: .ok, headers: [.contentType: "application/jsonl"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: record + "\n" + record + "\n")))
        }
    }

    /// Record 1, made 2026-11-02 10:00:00 UTC, its date as `style` says (`seconds`, else ISO 8601).
    private static func datedRecord(style: String?) -> String {
        let created = style == "seconds" ? "1793613600" : #""2026-11-02T10:00:00Z""#
        return #"{"id": 1, "created": \#(created)}"#
    }
}
