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
        // Evict the least recently used down to 3/4 of the capacity, so one sort pays for many stores.
        for (key, _) in entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where totalCost > capacity / 4 * 3 {
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
