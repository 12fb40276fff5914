import Foundation
import Logging

/// A service's store of answers for requests with a ``CachePolicy``: in memory and, when given
/// a directory, on disk, each with a size cap and least-recently-used eviction. A new service
/// with the same directory finds the entries; several services may share one cache.
///
/// Set it as ``ServiceConfiguration/responseCache``; every configuration starts with a 16 MiB
/// memory-only cache.
public final class ResponseCache: Sendable {
    /// The directory of the disk cache, if any.
    public var directory: URL? { disk?.directory }

    /// What the cache holds in memory, and its coalescer: made by the first request with a
    /// ``CachePolicy``, so a service that caches nothing pays for neither.
    private struct Memory {
        var store: MemoryCacheStore?
        var coalescer: MissCoalescer?
    }

    private let memoryCapacity: Int
    private let memory = Protected(Memory())
    private let disk: DiskCacheStore?

    /// A cache holding up to `memoryCapacity` bytes in memory and, when `directory` is given,
    /// up to `diskCapacity` bytes of files there (created when first needed). Unreadable or
    /// foreign files found there are removed with a warning through `logger`. Freshness is told
    /// by the clock of the service that asks (``ServiceConfiguration/clock``).
    public init(memoryCapacity: Int64 = 16 << 20, diskCapacity: Int64 = 256 << 20, directory: URL? = nil,
                logger: Logger = Logger(label: "NetworkKit.ResponseCache")) {
        self.memoryCapacity = Int(clamping: max(0, memoryCapacity))
        disk = directory.map { DiskCacheStore(directory: $0, capacity: Int(clamping: max(0, diskCapacity)), logger: logger) }
    }

    /// The bytes the memory cache holds.
    public var memoryUsage: Int { memory.withLock { $0.store?.totalCost ?? 0 } }

    /// The bytes of the disk cache's files (0 without a directory).
    public var diskUsage: Int { disk?.totalSize ?? 0 }

    /// Removes every entry, in memory and on disk.
    public func removeAll() {
        memory.withLock { $0.store?.removeAll() }
        disk?.removeAll()
    }

    /// Lets one request per key go to the network while others with the same key wait.
    var coalescer: MissCoalescer {
        memory.withLock { memory in
            if let coalescer = memory.coalescer { return coalescer }
            let coalescer = MissCoalescer()
            memory.coalescer = coalescer
            return coalescer
        }
    }

    /// The entry for `key`: from memory, else from disk (and then kept in memory too).
    func entry(for key: CacheKey) -> CacheEntry? {
        if let entry = memory.withLock({ $0.store?.entry(for: key.text) }) { return entry }
        guard let entry = disk?.entry(for: key) else { return nil }
        inMemory { $0.store(entry) }
        return entry
    }

    func store(_ entry: CacheEntry, key: CacheKey) {
        inMemory { $0.store(entry) }
        disk?.store(entry, key: key)
    }

    func remove(_ key: CacheKey) {
        memory.withLock { $0.store?.remove(key.text) }
        disk?.remove(key)
    }

    /// Runs `body` on the memory store, made on first use.
    private func inMemory(_ body: (inout MemoryCacheStore) -> Void) {
        let capacity = memoryCapacity
        memory.withLock { memory in
            // Taken out while it changes, so its entries have one owner and are not copied.
            var store = memory.store.take() ?? MemoryCacheStore(capacity: capacity)
            body(&store)
            memory.store = store
        }
    }
}
