import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hook the pipeline gives a cookie jar (``CookieJar`` fills it): asked for the `Cookie`
/// header of each transfer's URL, told the `Set-Cookie` fields of each head that arrives.
protocol CookieStoring: Sendable {
    /// True when no cookie is held: a transfer then has none to send, and its URL is not read.
    var isEmpty: Bool { get }
    /// The `Cookie` header's value for a transfer to `url`, or nil when no cookie goes with it.
    func cookieHeader(for url: URL) -> String?
    /// Keeps what the `Set-Cookie` fields of the answer to a transfer to `url` ask.
    func store(setCookieFields: [String], from url: URL)
}

/// A service's cookies at work on one request: before each transfer of an attempt (the first
/// send and every redirect) it adds the cookies the store holds for that transfer's URL to the
/// `Cookie` header (`Transfer` stores each head's `Set-Cookie` fields). A `Cookie` header the
/// request set itself is kept, in front of the store's cookies, as long as the redirect policy
/// keeps it.
struct TransferCookies: Sendable {
    let store: any CookieStoring
    /// The request's own `Cookie` header, without the store's.
    private var own: String?
    /// True once a transfer went out with the store's cookies in its `Cookie` header.
    private var addedStoredCookies = false

    /// The cookies of a request whose transfers go out through `prepare`.
    init(store: any CookieStoring) {
        self.store = store
    }

    /// `request` with the store's cookies for its URL. `request` is the first transfer, or a
    /// redirect made from the previous one (which carries that one's `Cookie` header unless the
    /// redirect policy dropped it for another origin). While the store is empty and no transfer
    /// carried its cookies, `request` goes out as it is, its headers not even read.
    mutating func prepare(_ request: OutgoingRequest) -> OutgoingRequest {
        if !addedStoredCookies {
            if store.isEmpty { return request }
            own = request.head.headerFields[.cookie]
        } else if request.head.headerFields[.cookie] == nil {
            own = nil
        }
        var prepared = request
        let stored = request.url.flatMap { store.cookieHeader(for: $0) }
        addedStoredCookies = stored != nil
        let value = [own, stored].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "; ")
        prepared.head.headerFields[.cookie] = value.isEmpty ? nil : value
        return prepared
    }
}
