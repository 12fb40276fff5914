import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Step 2 of the pipeline for a request with a ``CachePolicy``: what the cache holds for it,
/// whether that answers, which headers make the network request conditional, and storing or
/// refreshing the entry once the network answered.
struct CacheStep: Sendable {
    let cache: ResponseCache
    let policy: CachePolicy
    let key: CacheKey
    /// The entry found at lookup (fresh or stale), if any.
    private(set) var entry: CacheEntry?
    /// Whether this request leads a coalesced miss (and must call `finish()`).
    private(set) var leads = false

    /// The step for `prepared`, or nil when the request cannot be cached (no policy, a body
    /// from a file, a download to disk, a stream: only a plain request's answer is cached). The
    /// key leaves out the arguments the policy and `ignoring` (the service's) name.
    init?(policy: CachePolicy?, prepared: URLRequest, options: RequestOptions, cache: ResponseCache,
          ignoring: Set<String> = []) {
        guard let policy, case .plain = options.kind,
              let key = CacheKey(prepared, policy: policy, ignoring: ignoring.union(policy.ignoredArguments)) else { return nil }
        switch options.body {
        case .file, .multipart: return nil
        default: break
        }
        self.cache = cache
        self.policy = policy
        self.key = key
    }

    /// Reads the entry. With coalescing, waits while another request of the same key is at
    /// the network (`wait` runs the wait so the request's `cancel()` can stop it).
    mutating func lookUp(wait: (@escaping @Sendable () async -> Bool) async -> Bool) async {
        entry = cache.entry(for: key)
        guard policy.coalescesMisses, !isFresh, policy.mode != .reload else { return }
        let cache = self.cache, key = self.key
        while true {
            if await wait({ await cache.coalescer.lead(key.text) }) {
                leads = true
                return
            }
            entry = cache.entry(for: key)
            if isFresh || Task.isCancelled { return }
        }
    }

    /// Whether the entry found answers without the network.
    var isFresh: Bool {
        entry?.isFresh(at: cache.currentDate, policy: policy) ?? false
    }

    /// What to add to the request so a stale entry is revalidated, not fetched again.
    var conditionalHeaders: [String: String] {
        guard policy.mode != .reload else { return [:] }
        return entry?.conditionalHeaders ?? [:]
    }

    /// After a `304 Not Modified`: the entry, refreshed with the head's headers and stored again.
    func revalidate(with head: ResponseHead) -> CacheEntry? {
        guard let entry else { return nil }
        let refreshed = entry.revalidated(by: head, at: cache.currentDate)
        cache.store(refreshed, key: key)
        return refreshed
    }

    /// Stores a parsed-OK answer, unless the server said `no-store`.
    func store(_ response: Response) {
        guard !CacheControl(headers: response.headers).noStore else {
            if entry != nil { cache.remove(key) }
            return
        }
        cache.store(CacheEntry(key: key.text, url: response.url, statusCode: response.statusCode,
                               headers: response.headers, body: response.data, storedAt: cache.currentDate), key: key)
    }

    /// An entry the parser chain refused is dropped, so it does not answer again.
    mutating func discardEntry() {
        cache.remove(key)
        entry = nil
    }

    /// Wakes the requests that waited for this one.
    func finish() {
        if leads { cache.coalescer.finish(key.text) }
    }
}
