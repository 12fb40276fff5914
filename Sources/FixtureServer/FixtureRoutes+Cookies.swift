import Foundation
import Hummingbird
import HTTPTypes
import NIOCore

extension FixtureRoutes {
    /// Routes that set cookies and show the ones that came back:
    /// - `/cookies` (any path under it too, e.g. `/cookies/a/b`): `{"cookie": "<Cookie header>",
    ///   "path": "<path>"}`;
    /// - `/cookies/set?set=<Set-Cookie value>&set=…`: one `Set-Cookie` field per `set`, as given,
    ///   and the same JSON;
    /// - `/cookies/redirect?to=<path>&set=…`: `302` to `to` with those `Set-Cookie` fields;
    /// - `/cookies/login?user=&password=`: `secret` as the password sets
    ///   `session=token-<user>; Path=/; HttpOnly`, else `401`;
    /// - `/cookies/private`: `{"user": "<user>"}` with that session cookie, else `401`.
    static func addCookies(to router: Router<BasicRequestContext>) {
        let show: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            answer(request, status: .ok, setting: values(request, "set"))
        }
        router.get("cookies", use: show)
        router.get("cookies/set", use: show)
        router.get("cookies/{a}/{b}", use: show)
        router.get("cookies/redirect") { request, _ in
            var response = answer(request, status: .found, setting: values(request, "set"))
            response.headers[.location] = query(request, "to") ?? "/cookies"
            return response
        }
        router.get("cookies/login") { request, _ in
            guard let user = query(request, "user"), query(request, "password") == "secret" else {
                return json(#"{"code": 401, "msg": "wrong user or password"}"#, status: .unauthorized)
            }
            return answer(request, status: .ok, setting: ["session=token-\(user); Path=/; HttpOnly"])
        }
        router.get("cookies/private") { request, _ in
            let cookie = request.headers[.cookie] ?? ""
            guard let token = cookie.split(separator: ";").lazy.map({ $0.trimmingCharacters(in: .whitespaces) })
                    .first(where: { $0.hasPrefix("session=token-") }) else {
                return json(#"{"code": 401, "msg": "log in first"}"#, status: .unauthorized)
            }
            let user = token.dropFirst("session=token-".count)
            return json(#"{"code": 0, "user": "\#(user)"}"#)
        }
    }

    /// Every value of the query parameter `name`, percent-decoded.
    private static func values(_ request: Request, _ name: String) -> [String] {
        request.uri.queryParameters.getAll(name).map { $0.removingPercentEncoding ?? $0 }
    }

    private static func answer(_ request: Request, status: HTTPResponse.Status, setting cookies: [String]) -> Response {
        let body: [String: String] = ["cookie": request.headers[.cookie] ?? "", "path": request.uri.path]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8)
        var headers = HTTPFields()
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return respond(status, contentType: "application/json", body: data, extraHeaders: headers)
    }
}
