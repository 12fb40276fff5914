import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hook the pipeline gives a response cache (``ResponseCache`` fills it): stage 2 asks the
/// service's cache about a request that has a ``CachePolicy`` and can be cached.
protocol ResponseCaching: Sendable {
    /// The cache at work on the request whose request, as built, is `prepared`; nil when
    /// the cache keeps no answer for it (a method or URL it has no key for). The key leaves out
    /// the query arguments the policy and `ignoring` (the service's) name; freshness is told by
    /// `dates` (the service's clock).
    func lookUp(_ prepared: OutgoingRequest, policy: CachePolicy, ignoring: Set<String>, dates: ClockDates) -> (any RequestCaching)?
}

/// A response cache at work on one request: what it holds for it, whether that answers, which
/// headers make the network request conditional, and keeping the network's answer.
protocol RequestCaching: Sendable {
    /// Reads the entry. With coalescing, waits while another request of the same key is at the
    /// network (`wait` runs each wait so the request's `cancel()` can stop it; it returns false
    /// when cancelled).
    mutating func find(wait: (@escaping @Sendable () async -> Bool) async -> Bool) async -> CacheFinding
    /// What to add to the request so the stale entry found is revalidated, not fetched again.
    var conditionalFields: HTTPFields { get }
    /// True when an entry was found that a `304 Not Modified` can refresh.
    var canRevalidate: Bool { get }
    /// After a `304 Not Modified` with `head`: the entry found, refreshed and stored again, as
    /// the response parsers see; nil when there is none.
    func revalidate(with head: ResponseHead) -> Response?
    /// Keeps an answer the parser chain accepted, unless the server said `no-store`.
    func store(_ response: Response)
    /// Drops the entry found, which the parser chain refused, so it does not answer again.
    mutating func discardEntry()
    /// Wakes the requests that waited for this one. Called once, when the request is done with
    /// the cache.
    func finish()
}

/// What a request's cache found, and so what stage 2 does.
enum CacheFinding: Sendable {
    /// No entry the request may use (none, or its policy reloads): the network answers.
    case miss
    /// An entry the network answers for, made conditional on it where it has validators.
    case stale
    /// An entry that answers without the network, if it parses.
    case fresh(Response)
    /// An entry delivered to the handlers before the network's answer, if it parses.
    case interim(Response)
}
