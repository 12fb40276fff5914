import Foundation
import FixtureServer
@testable import NetworkKit
import Testing

@Suite("Set-Cookie fields kept apart")
struct SetCookieFieldsTests {
    @Test("joined fields split back", arguments: [
        ("a=1", ["a=1"]),
        ("a=1, b=2", ["a=1", "b=2"]),
        ("a=1; Expires=Wed, 09 Jun 2027 10:18:14 GMT; Path=/, b=2; Max-Age=5",
         ["a=1; Expires=Wed, 09 Jun 2027 10:18:14 GMT; Path=/", "b=2; Max-Age=5"]),
        ("a=x,y", ["a=x,y"]),
        ("a=1,,  b=2 ,", ["a=1,", "b=2 ,"].map { $0.trimmingCharacters(in: .whitespaces) }),
        ("", []),
        ("__Host-id=abc; Secure, lang=en-US", ["__Host-id=abc; Secure", "lang=en-US"]),
    ] as [(String, [String])])
    func split(joined: String, expected: [String]) {
        #expect(SetCookieFields.split(joined) == expected)
    }

    @Test("each transport hands over every Set-Cookie field on its own", arguments: TransportKind.allCases)
    func fromServer(transport: TransportKind) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let heads = HeadRecorder()
        var configuration = ServiceConfiguration(baseURL: server.baseURL, timeout: .seconds(15))
        configuration.eventMonitors = [heads]
        let service = transport.service(configuration)
        _ = try await service.send(Request(path: CookiePaths.set(["a=1; Expires=Wed, 09 Jun 2027 10:18:14 GMT; Path=/", "b=2; HttpOnly"]),
                                           parser: DataParser()))
        #expect(heads.heads.all.first?.headerFields[values: .setCookie] == ["a=1; Expires=Wed, 09 Jun 2027 10:18:14 GMT; Path=/", "b=2; HttpOnly"])
    }
}

/// Keeps every response head a service receives.
final class HeadRecorder: EventMonitor {
    let heads = Recorder<ResponseHead>()

    func request(_ id: RequestID, didReceive head: ResponseHead, attempt: Int) {
        heads.append(head)
    }
}

/// Paths of the fixture's cookie routes.
enum CookiePaths {
    /// `/cookies/set` (or another route that takes `set`) answering with `cookies` as its
    /// `Set-Cookie` fields.
    static func set(_ cookies: [String], route: String = "/cookies/set", extra: [URLQueryItem] = []) -> String {
        var components = URLComponents()
        components.path = route
        components.queryItems = extra + cookies.map { URLQueryItem(name: "set", value: $0) }
        // URLComponents leaves ";" and "=" in query values as they are; encode them so each value
        // reaches the server whole.
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        components.percentEncodedQuery = components.queryItems?.map {
            "\($0.name)=\($0.value?.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
        return components.string ?? route
    }
}
