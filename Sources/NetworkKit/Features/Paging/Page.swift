/// One page of a list as the server sent it: its items, and what it said about the pages after it.
public struct Page<Item: Sendable>: Sendable {
    /// The page's items, in order.
    public var items: [Item]
    /// How many items the whole list has, when the answer says.
    public var totalCount: Int?
    /// Whether more pages follow, when the answer says.
    public var hasMore: Bool?

    /// Creates a page; a parser of your own makes these.
    public init(items: [Item], totalCount: Int? = nil, hasMore: Bool? = nil) {
        self.items = items
        self.totalCount = totalCount
        self.hasMore = hasMore
    }

    /// Whether this page is the last one: it is empty; or the answer says no more pages follow;
    /// or, without that, `loadedCount` (items loaded, this page's included) has reached the
    /// total; or, when the answer says neither, the page has fewer items than `pageSize`.
    func isLast(loadedCount: Int, pageSize: Int) -> Bool {
        if items.isEmpty { return true }
        if let hasMore { return !hasMore }
        if let totalCount { return loadedCount >= totalCount }
        return items.count < pageSize
    }
}

/// What a `Pager` load brought: the new page's items and whether it was the last.
public struct LoadedPage<Item: Sendable>: Sendable {
    /// The items of this page alone (the pager's `items` has them all).
    public let items: [Item]
    /// Which page it was: 0 for the first, 1 for the next…
    public let index: Int
    /// True when no page follows it: `loadNextPage` will refuse with `NetworkError.noMorePages`.
    public let isLast: Bool
}
