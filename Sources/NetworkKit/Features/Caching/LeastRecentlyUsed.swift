/// The eviction rule the memory and disk stores share.
enum LeastRecentlyUsed {
    /// Once `total` passes `capacity`: the keys to drop, least recently used first, until what
    /// is left fits in 3/4 of `capacity`, so one sort pays for many stores. None below it.
    static func evictions<Key, Stamp: Comparable>(from entries: [Key: (size: Int, lastUse: Stamp)],
                                                  total: Int, capacity: Int) -> [Key] {
        guard total > capacity else { return [] }
        var total = total
        var evicted: [Key] = []
        for (key, entry) in entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where total > capacity / 4 * 3 {
            evicted.append(key)
            total -= entry.size
        }
        return evicted
    }
}
