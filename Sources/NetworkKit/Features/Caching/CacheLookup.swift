import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ResponseCache: ResponseCaching {
    func lookUp(_ prepared: OutgoingRequest, policy: CachePolicy, ignoring: Set<String>, dates: ClockDates) -> (any RequestCaching)? {
        key(for: prepared, policy: policy, ignoring: ignoring).map { CacheLookup(cache: self, policy: policy, key: $0, dates: dates) }
    }

    /// The key of `prepared` under `policy`, without the query arguments the policy and
    /// `ignoring` name; nil when the cache keeps no answer for it.
    func key(for prepared: OutgoingRequest, policy: CachePolicy, ignoring: Set<String>) -> CacheKey? {
        CacheKey(prepared, policy: policy, ignoring: ignoring.union(policy.ignoredArguments))
    }
}

/// The response cache at work on one request (the pipeline's stage 2, through
/// `RequestCaching`): the entry found for its key under its policy, and what follows from it.
struct CacheLookup: RequestCaching {
    let cache: ResponseCache
    let policy: CachePolicy
    let key: CacheKey
    /// The service's dates: what freshness and storage times are told by.
    let dates: ClockDates
    /// The entry found (fresh or stale), if any.
    private(set) var entry: CacheEntry?
    /// Whether this request leads a coalesced miss (and must call `finish()`).
    private(set) var leads = false

    init(cache: ResponseCache, policy: CachePolicy, key: CacheKey, dates: ClockDates) {
        self.cache = cache
        self.policy = policy
        self.key = key
        self.dates = dates
    }

    mutating func find(wait: (@escaping @Sendable () async -> Bool) async -> Bool) async -> CacheFinding {
        entry = cache.entry(for: key)
        if policy.coalescesMisses, !isFresh, policy.mode != .reload {
            let cache = self.cache, key = self.key
            while true {
                if await wait({ await cache.coalescer.lead(key.text) }) {
                    leads = true
                    break
                }
                entry = cache.entry(for: key)
                if isFresh || Task.isCancelled { break }
            }
        }
        guard let entry, policy.mode != .reload else { return .miss }
        switch policy.mode {
        case .cacheElseNetwork where isFresh: return .fresh(entry.response)
        case .cacheThenNetwork: return .interim(entry.response)
        default: return .stale
        }
    }

    /// Whether the entry found answers without the network.
    var isFresh: Bool {
        entry?.isFresh(at: dates.now, policy: policy) ?? false
    }

    var conditionalFields: HTTPFields {
        guard policy.mode != .reload else { return [:] }
        return entry?.conditionalHeaderFields ?? [:]
    }

    var canRevalidate: Bool { entry != nil }

    func revalidate(with head: ResponseHead) -> Response? {
        guard let entry else { return nil }
        let refreshed = entry.revalidated(by: head, at: dates.now)
        cache.store(refreshed, key: key)
        return refreshed.response
    }

    func store(_ response: Response) {
        guard !CacheControl(response.headerFields).noStore else {
            if entry != nil { cache.remove(key) }
            return
        }
        cache.store(CacheEntry(key: key.text, url: response.url, status: response.status,
                               headerFields: response.headerFields, body: response.data, storedAt: dates.now), key: key)
    }

    mutating func discardEntry() {
        cache.remove(key)
        entry = nil
    }

    func finish() {
        if leads { cache.coalescer.finish(key.text) }
    }
}
