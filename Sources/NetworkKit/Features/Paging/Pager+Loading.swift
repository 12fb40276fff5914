/// Where a pager is, guarded by its lock.
struct PagerProgress<Item: Sendable> {
    /// A load under way.
    struct Load {
        let generation: Int
        /// Its request, once made.
        var request: Request<Page<Item>>?
        /// `cancel()` was called before the request was made.
        var isCancelRequested = false
    }

    var items: [Item] = []
    var loadedPages = 0
    var reachedEnd = false
    var load: Load?
    /// Counts the loads let through, so a load that `loadFirstPage` replaced is told from the current one.
    var generation = 0
}

/// A load that was let through: its request, and whether it starts the list over.
struct PendingLoad<Item: Sendable>: Sendable {
    let request: Request<Page<Item>>
    let generation: Int
    let startsOver: Bool
}

extension Pager {
    /// Which page a load asks for.
    enum LoadKind {
        /// The first page, starting over.
        case first
        /// The page after those loaded.
        case next
    }

    /// A load let through, before its request is made.
    private struct Admission {
        let generation: Int
        let parameters: [String: JSON]
        let startsOver: Bool
        /// The load it replaces (`loadFirstPage` while loading), to cancel.
        let replaced: Request<Page<Item>>?
    }

    /// Lets a load through or refuses it, then makes its request with the page parameters added.
    func begin(_ kind: LoadKind) throws(NetworkError) -> PendingLoad<Item> {
        let admission = try progress.withLock { progress in
            Result { () throws(NetworkError) in try admit(kind, &progress) }
        }.get()
        admission.replaced?.cancel()
        let request = makeRequest()
        request.parameters.merge(admission.parameters) { _, page in page }
        let isCurrent = progress.withLock { progress -> Bool in
            guard progress.load?.generation == admission.generation else { return false }
            progress.load?.request = request
            return progress.load?.isCancelRequested == false
        }
        if !isCurrent { request.cancel() }   // replaced or cancelled while it was being made
        return PendingLoad(request: request, generation: admission.generation, startsOver: admission.startsOver)
    }

    private func admit(_ kind: LoadKind, _ progress: inout PagerProgress<Item>) throws(NetworkError) -> Admission {
        if kind == .next {
            guard progress.load == nil else { throw .pageAlreadyLoading }
            guard !progress.reachedEnd else { throw .noMorePages }
        }
        let replaced = progress.load?.request
        let startsOver = kind == .first || progress.loadedPages == 0
        progress.generation += 1
        progress.load = PagerProgress.Load(generation: progress.generation)
        let parameters = startsOver ? paging.parameters(loadedPages: 0, loadedItems: 0)
            : paging.parameters(loadedPages: progress.loadedPages, loadedItems: progress.items.count)
        return Admission(generation: progress.generation, parameters: parameters, startsOver: startsOver, replaced: replaced)
    }

    /// Counts the page a load brought, or leaves everything as it was when it failed or was replaced.
    func finish(_ load: PendingLoad<Item>, with result: Result<Page<Item>, NetworkError>) -> Result<LoadedPage<Item>, NetworkError> {
        progress.withLock { progress in
            guard progress.load?.generation == load.generation else { return .failure(.cancelled) }
            progress.load = nil
            switch result {
            case .failure(let error):
                return .failure(error)
            case .success(let page):
                if load.startsOver {
                    progress.items = []
                    progress.loadedPages = 0
                }
                progress.items += page.items
                progress.loadedPages += 1
                progress.reachedEnd = page.isLast(loadedCount: progress.items.count, pageSize: paging.pageSize)
                return .success(LoadedPage(items: page.items, index: progress.loadedPages - 1, isLast: progress.reachedEnd))
            }
        }
    }

    /// Marks the load under way cancelled and returns its request, if it has one yet.
    func cancelLoad() -> Request<Page<Item>>? {
        progress.withLock { progress in
            progress.load?.isCancelRequested = true
            return progress.load?.request
        }
    }
}

extension Pager {
    /// Loads the first page, cancelling any load under way, and calls `completion` on the main
    /// actor with the page or why it did not come.
    public func loadFirstPage(completion: @escaping @MainActor @Sendable (Result<LoadedPage<Item>, NetworkError>) -> Void) {
        load(.first, completion: completion)
    }

    /// Loads the page after those loaded and calls `completion` on the main actor with the page
    /// or why it did not come (refusals included).
    public func loadNextPage(completion: @escaping @MainActor @Sendable (Result<LoadedPage<Item>, NetworkError>) -> Void) {
        load(.next, completion: completion)
    }

    private func load(_ kind: LoadKind, completion: @escaping @MainActor @Sendable (Result<LoadedPage<Item>, NetworkError>) -> Void) {
        let pending: PendingLoad<Item>
        do {
            pending = try begin(kind)
        } catch {
            MainActorQueue.async { completion(.failure(error)) }
            return
        }
        pending.request.observeResult { [self] result in
            let finished = finish(pending, with: result)
            MainActorQueue.async { completion(finished) }
        }
        service.start(pending.request)
    }
}
