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
    /// True when no page follows it: `loadNextPage` will refuse with `PagingError.noMorePages`.
    public let isLast: Bool
}

/// Why a `Pager` did not load a page.
public enum PagingError: Error, Sendable, CustomStringConvertible {
    /// A page is loading already; `loadNextPage` refused to send another (`loadFirstPage`
    /// would cancel it and start over).
    case alreadyLoading
    /// The last page has been loaded; `loadFirstPage` starts over.
    case noMorePages
    /// The page's request failed (or was cancelled). Nothing was counted: the next load asks
    /// for the same page again.
    case requestFailed(NetworkError)

    /// True when the pager refused to send anything (loading, or at the end).
    public var isRefusal: Bool {
        if case .requestFailed = self { return false }
        return true
    }

    /// One line fit for a log.
    public var description: String {
        switch self {
        case .alreadyLoading: return "a page is loading already"
        case .noMorePages: return "the last page has been loaded"
        case .requestFailed(let error): return "the page request failed: \(error)"
        }
    }
}
