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

    private let memory: Protected<MemoryCacheStore>
    private let disk: DiskCacheStore?
    private let now: @Sendable () -> Date
    let coalescer = MissCoalescer()

    /// A cache holding up to `memoryCapacity` bytes in memory and, when `directory` is given,
    /// up to `diskCapacity` bytes of files there (created when first needed). Unreadable or
    /// foreign files found there are removed with a warning through `logger`. `now` tells the
    /// time for freshness (tests pass their own).
    public init(memoryCapacity: Int64 = 16 << 20, diskCapacity: Int64 = 256 << 20, directory: URL? = nil,
                logger: Logger = Logger(label: "NetworkKit.ResponseCache"),
                now: @escaping @Sendable () -> Date = { Date() }) {
        memory = Protected(MemoryCacheStore(capacity: Int(clamping: max(0, memoryCapacity))))
        disk = directory.map { DiskCacheStore(directory: $0, capacity: Int(clamping: max(0, diskCapacity)), logger: logger) }
        self.now = now
    }

    /// The bytes the memory cache holds.
    public var memoryUsage: Int { memory.withLock { $0.totalCost } }

    /// The bytes of the disk cache's files (0 without a directory).
    public var diskUsage: Int { disk?.totalSize ?? 0 }

    /// Removes every entry, in memory and on disk.
    public func removeAll() {
        memory.withLock { $0.removeAll() }
        disk?.removeAll()
    }

    /// The current time, as the cache tells it.
    var currentDate: Date { now() }

    /// The entry for `key`: from memory, else from disk (and then kept in memory too).
    func entry(for key: CacheKey) -> CacheEntry? {
        if let entry = memory.withLock({ $0.entry(for: key.text) }) { return entry }
        guard let entry = disk?.entry(for: key) else { return nil }
        memory.withLock { $0.store(entry) }
        return entry
    }

    func store(_ entry: CacheEntry, key: CacheKey) {
        memory.withLock { $0.store(entry) }
        disk?.store(entry, key: key)
    }

    func remove(_ key: CacheKey) {
        memory.withLock { $0.remove(key.text) }
        disk?.remove(key)
    }
}
