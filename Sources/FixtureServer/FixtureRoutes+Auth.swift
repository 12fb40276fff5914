import Foundation
import Hummingbird
import NIOCore

extension FixtureServer {
    /// The token `/protected` accepts.
    public static let freshToken = "fresh-token"
}

extension FixtureRoutes {
    /// Redirects, a token-protected route and a signature-checking route.
    static func addAuth(to router: Router<BasicRequestContext>, verifier: SignatureVerifier?) {
        // ?to=URL&status=302 redirects there (GET, or POST after reading the body).
        let redirect: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            _ = try await request.body.collect(upTo: 64 << 20)
            let status = Int(query(request, "status") ?? "") ?? 302
            var headers: HTTPFields = [:]
            headers[.location] = query(request, "to") ?? "/json/small"
            return Response(status: HTTPResponse.Status(code: status), headers: headers)
        }
        router.get("redirect", use: redirect)
        router.post("redirect", use: redirect)
        // Accepts only `Authorization: Bearer fresh-token`; otherwise a 401, or with ?style=code a
        // 200 whose envelope says {"code": 401001, "message": "token expired"}.
        router.get("protected") { request, _ in
            if request.headers[.authorization] == "Bearer \(FixtureServer.freshToken)" {
                return json(#"{"code": 0, "data": {"user": "ann"}}"#)
            }
            if query(request, "style") == "code" {
                return json(#"{"code": 401001, "message": "token expired"}"#)
            }
            return json(#"{"code": 401, "message": "unauthorized"}"#, status: .unauthorized)
        }
        // Checks `X-Signature` against METHOD\npath?query\nbody with the verifier the server was
        // started with: 200 when it matches, 401 otherwise.
        let signed: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let body = try await request.body.collect(upTo: 1 << 20)
            var content = Data("\(request.method.rawValue)\n\(request.uri.path)\(request.uri.query.map { "?" + $0 } ?? "")\n".utf8)
            content.append(contentsOf: body.readableBytesView)
            let signature = request.headers.first { $0.name.canonicalName == "x-signature" }?.value ?? ""
            guard let verifier, verifier(content, signature) else {
                return json(#"{"code": 1, "message": "bad signature"}"#, status: .unauthorized)
            }
            return json(#"{"code": 0, "verified": true}"#)
        }
        router.on("signed", method: .get, use: signed)
        router.on("signed", method: .post, use: signed)
        // HTTP Basic: 200 `{"user": U}` to `Authorization: Basic base64(U:P)`, else a 401 that
        // offers Basic (or, with ?scheme=Bearer, only Bearer) in `WWW-Authenticate`.
        router.get("basic-auth/{user}/{password}") { request, context in
            let user = context.parameters.get("user")?.removingPercentEncoding ?? ""
            let password = context.parameters.get("password")?.removingPercentEncoding ?? ""
            let expected = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
            if request.headers[.authorization] == expected {
                return json(#"{"code": 0, "user": "\#(user)"}"#)
            }
            var headers: HTTPFields = [.contentType: "application/json"]
            headers[.wwwAuthenticate] = query(request, "scheme") == "Bearer" ? #"Bearer realm="fixture""#
                                                                             : #"Basic realm="fixture", charset="UTF-8""#
            return Response(status: .unauthorized, headers: headers,
                            body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"code": 401, "message": "unauthorized"}"#)))
        }
    }
}

/// Checks a signature against the signed bytes; tests give one (HMAC-SHA256 in the tests).
public typealias SignatureVerifier = @Sendable (_ content: Data, _ signature: String) -> Bool
