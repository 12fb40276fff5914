import Foundation

/// How a request uses its service's ``ResponseCache`` (YTKNetwork's `cacheTimeInSeconds`,
/// `cacheVersion`, `cacheSensitiveData` and `ignoreCache`). Set it as ``AnyRequest/cache``.
///
/// A request with a policy answers from the cache while its entry is fresh, without any
/// network traffic. A stale entry that has validators (`ETag`, `Last-Modified`) is revalidated:
/// a `304 Not Modified` refreshes it and counts as a hit. Only answers that pass validation and
/// parse without error are stored, and an entry is parsed again by the request's own parser
/// chain whenever it answers.
public struct CachePolicy: Sendable, Equatable {
    /// When the cache answers and when the network does.
    public enum Mode: Sendable, Equatable {
        /// A fresh entry answers; otherwise the network does (conditionally, when the stale
        /// entry has validators) and its answer is stored. The default.
        case cacheElseNetwork
        /// The cached value, fresh or stale, is delivered at once, then the network's answer:
        /// completion handlers are called twice (see ``AnyRequest/cache``).
        case cacheThenNetwork
        /// YTKNetwork's `ignoreCache`: the network always answers, and its answer is stored.
        case reload
    }

    /// How long an entry stays fresh after it was stored or revalidated.
    public var lifetime: Duration
    /// When the cache answers and when the network does.
    public var mode: Mode
    /// Follow the server's `Cache-Control`: `max-age` sets the lifetime and `no-cache`
    /// makes every use revalidate. (`no-store` is honoured whatever this says.)
    public var usesHTTPSemantics: Bool
    /// Part of the key (YTKNetwork's `cacheVersion`): raise it when the format of the answer
    /// changes, so entries of the old format are no longer found.
    public var version: Int
    /// Part of the key (YTKNetwork's `cacheSensitiveData`), e.g. the signed-in user's id, so
    /// one user's entries never answer another's requests.
    public var sensitiveData: String?
    /// Concurrent misses for the same key send one request: the others wait for it and answer
    /// from what it stored (or go to the network themselves if it stored nothing).
    public var coalescesMisses: Bool
    /// Arguments (query items, and the keys of a form or JSON object body) left out of the key
    /// (YTKNetwork's `cacheFileNameFilterForRequestArgument`), beside the service's
    /// ``ServiceConfiguration/ignoredCacheKeyArguments``: a timestamp or nonce that would make
    /// every key new.
    public var ignoredArguments: Set<String> = []

    /// A policy whose entries are fresh for `lifetime`.
    public init(lifetime: Duration, mode: Mode = .cacheElseNetwork, usesHTTPSemantics: Bool = false,
                version: Int = 0, sensitiveData: String? = nil, coalescesMisses: Bool = false) {
        self.lifetime = lifetime
        self.mode = mode
        self.usesHTTPSemantics = usesHTTPSemantics
        self.version = version
        self.sensitiveData = sensitiveData
        self.coalescesMisses = coalescesMisses
    }

    /// The server's `Cache-Control` decides, `lifetime` when it says nothing.
    public static func http(defaultLifetime lifetime: Duration = .zero) -> CachePolicy {
        CachePolicy(lifetime: lifetime, usesHTTPSemantics: true)
    }
}
