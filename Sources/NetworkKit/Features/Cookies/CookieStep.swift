import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The service's cookie jar at work on one request: before each hop (the first send and every
/// redirect) it adds the cookies the jar holds for that hop's URL to the `Cookie` header; when a
/// head arrives it stores that head's `Set-Cookie` fields. A `Cookie` header the request set
/// itself is kept, in front of the jar's cookies, as long as the redirect policy keeps it.
struct CookieStep: Sendable {
    let jar: CookieJar
    /// The request's own `Cookie` header, without the jar's.
    private var own: String?
    /// True once a hop went out with the jar's cookies in its `Cookie` header.
    private var addedJarCookies = false

    /// The step for a request whose hops go out through `prepare`.
    init(jar: CookieJar) {
        self.jar = jar
    }

    /// `request` with the jar's cookies for its URL. `request` is the first hop, or a redirect
    /// made from the previous hop (which carries that hop's `Cookie` header unless the redirect
    /// policy dropped it for another origin). While the jar is empty and no hop carried its
    /// cookies, `request` goes out as it is, its headers not even read.
    mutating func prepare(_ request: URLRequest) -> URLRequest {
        if !addedJarCookies {
            if jar.isEmpty { return request }
            own = request.value(forHTTPHeaderField: "Cookie")
        } else if request.value(forHTTPHeaderField: "Cookie") == nil {
            own = nil
        }
        var prepared = request
        let jarCookies = request.url.flatMap { jar.cookieHeader(for: $0) }
        addedJarCookies = jarCookies != nil
        let value = [own, jarCookies].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "; ")
        prepared.setValue(value.isEmpty ? nil : value, forHTTPHeaderField: "Cookie")
        return prepared
    }
}

extension AnyRequest {
    /// Whether the service's ``ServiceConfiguration/cookies`` jar applies to this request (true
    /// by default): its cookies are sent with it and with its redirects, and the cookies its
    /// answers set are stored. False sends none and stores none.
    public var usesCookies: Bool {
        get { self[option: \.usesCookies] }
        set { self[option: \.usesCookies] = newValue }
    }
}
