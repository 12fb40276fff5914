/// Loads a list page after page (AIFNetworking's paged API manager): asks for each page with
/// the page number or offset and the page size added to its request, keeps every item in
/// order, and knows when the last page has come.
///
/// ```swift
/// let pager = Pager(service: service, path: "/articles", parameters: ["tag": "swift"],
///                   paging: Paging(pageSize: 20),
///                   parser: PageParser(Article.self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data"),
///                                      items: "items", lastPage: .totalCount(at: "total")))
/// try await pager.loadFirstPage()
/// while pager.hasMorePages { try await pager.loadNextPage() }
/// print(pager.items.count)
/// ```
///
/// `loadNextPage` refuses (``NetworkError/pageAlreadyLoading``, ``NetworkError/noMorePages``) rather
/// than send a second request for a page or one past the end. The page counter moves only when
/// a page arrives, so after a failure the next load asks for the same page again: nothing is
/// skipped or repeated. `loadFirstPage` starts over, cancelling a load under way; the items are
/// replaced when the first page arrives. Every method may be called from any thread or task.
public final class Pager<Item: Sendable>: Sendable {
    /// Makes a fresh request for a page; the pager adds the page parameters to it.
    public typealias RequestFactory = @Sendable () -> Request<Page<Item>>

    /// The service that sends the pages.
    public let service: Service
    /// The page size and the parameters the pages are asked for with.
    public let paging: Paging
    let makeRequest: RequestFactory
    /// Items, counters and the load under way, under one lock.
    let progress = Protected(PagerProgress<Item>())

    /// A pager whose page requests `makeRequest` makes, with any path, method, headers,
    /// interceptors or parser; the page parameters are added to each request's `parameters`.
    public init(service: Service, paging: Paging = Paging(), makeRequest: @escaping RequestFactory) {
        self.service = service
        self.paging = paging
        self.makeRequest = makeRequest
    }

    /// A pager of GET requests for `path` with `parameters`, the page parameters added, each
    /// answer parsed by `parser` (a ``PageParser`` or one of your own).
    public convenience init(service: Service, path: String, parameters: [String: JSON] = [:],
                            paging: Paging = Paging(), parser: some ResponseParser<Page<Item>>) {
        self.init(service: service, paging: paging) {
            Request(path: path, parameters: parameters, parser: parser)
        }
    }

    /// Every item loaded so far, in order.
    public var items: [Item] { progress.withLock { $0.items } }
    /// How many pages have been loaded.
    public var loadedPageCount: Int { progress.withLock { $0.loadedPages } }
    /// True while a page is loading.
    public var isLoading: Bool { progress.withLock { $0.load != nil } }
    /// True once the last page has been loaded (until `loadFirstPage` starts over).
    public var hasLoadedLastPage: Bool { progress.withLock { $0.reachedEnd } }
    /// True when a page may follow: the last one has not been loaded yet.
    public var hasMorePages: Bool { !hasLoadedLastPage }

    /// Loads the first page, cancelling any load under way; its items replace the pager's.
    @discardableResult
    public func loadFirstPage() async throws(NetworkError) -> LoadedPage<Item> {
        try await load(begin(.first))
    }

    /// Loads the page after those loaded (the first when none is), its items appended to the
    /// pager's. Refuses while a page is loading or after the last page.
    @discardableResult
    public func loadNextPage() async throws(NetworkError) -> LoadedPage<Item> {
        try await load(begin(.next))
    }

    /// Cancels the load under way, if any; its caller gets `NetworkError.cancelled` and the next
    /// load asks for the same page.
    public func cancel() {
        cancelLoad()?.cancel()
    }

    private func load(_ pending: PendingLoad<Item>) async throws(NetworkError) -> LoadedPage<Item> {
        try finish(pending, with: await service.result(of: pending.request)).get()
    }
}
