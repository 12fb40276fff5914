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
    }
}
