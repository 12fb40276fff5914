import Foundation
import Hummingbird

extension FixtureRoutes {
    /// The feed every JSON example reads: the SCNetworkKit sample's shape.
    static func feed(code: String, message: String) -> String {
        """
        {"code": \(code), "message": "\(message)", "content": {"entrance": [
          {"name": "Spring sale", "type": 5, "isFlagship": false, "pic": "http://127.0.0.1/e/1.jpg"},
          {"name": "New arrivals", "type": 2, "isFlagship": true, "pic": "http://127.0.0.1/e/2.jpg"}
        ]}}
        """
    }

    static func addJSON(to router: Router<BasicRequestContext>) {
        // ?code=1001 sets the business code; ?quoted=1 sends it as a string; ?message= sets the message.
        router.get("json/feed") { request, _ in
            let raw = query(request, "code") ?? "0"
            let code = query(request, "quoted") == "1" ? "\"\(raw)\"" : raw
            return json(feed(code: code, message: query(request, "message") ?? "ok"))
        }
        router.get("json/small") { _, _ in
            json(#"{"code":0,"message":"ok","content":{"id":42,"name":"small","tags":["a","b"],"score":9.5}}"#)
        }
        // HEAD: the headers of /json/small, no body.
        router.on("json/small", method: .head) { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"])
        }
        router.get("json/malformed") { _, _ in
            json(#"{"code": 0, "content": {"entrance": [{"name": "cut"#)
        }
        router.get("json/wrong-types") { _, _ in
            json(#"{"code": 0, "content": {"entrance": [{"name": 7, "type": "five", "isFlagship": false, "pic": null}]}}"#)
        }
        router.get("json/array") { _, _ in
            json(#"[{"id": 1}, {"id": 2}, {"id": 3}]"#)
        }
        router.get("html") { _, _ in
            respond(contentType: "text/html; charset=utf-8", body: Data("<html><body>Not JSON</body></html>".utf8))
        }
        router.get("empty") { _, _ in
            respond(contentType: "application/json", body: Data())
        }
        // ?charset=iso-8859-1 encodes the text in that charset and says so.
        router.get("text") { request, _ in
            let charset = query(request, "charset") ?? "utf-8"
            let encoding: String.Encoding = charset == "iso-8859-1" ? .isoLatin1 : .utf8
            let body = "Grüße aus Köln, café".data(using: encoding) ?? Data()
            return respond(contentType: "text/plain; charset=\(charset)", body: body)
        }
    }
}
