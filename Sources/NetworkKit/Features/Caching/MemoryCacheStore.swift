import Foundation

/// Entries in memory, least recently used evicted first once their cost passes `capacity`.
struct MemoryCacheStore: Sendable {
    let capacity: Int
    private var entries: [String: (entry: CacheEntry, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0
    private(set) var totalCost = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { entries.count }

    mutating func entry(for key: String) -> CacheEntry? {
        guard let found = entries[key] else { return nil }
        clock += 1
        entries[key]?.lastUse = clock
        return found.entry
    }

    mutating func store(_ entry: CacheEntry) {
        remove(entry.key)
        guard entry.cost <= capacity else { return }
        clock += 1
        entries[entry.key] = (entry, clock)
        totalCost += entry.cost
        guard totalCost > capacity else { return }
        let sizes = entries.mapValues { (size: $0.entry.cost, lastUse: $0.lastUse) }
        for key in LeastRecentlyUsed.evictions(from: sizes, total: totalCost, capacity: capacity) {
            remove(key)
        }
    }

    mutating func remove(_ key: String) {
        guard let old = entries.removeValue(forKey: key) else { return }
        totalCost -= old.entry.cost
    }

    mutating func removeAll() {
        entries.removeAll()
        totalCost = 0
    }
}
