import Foundation
import NetworkKit

// MARK: - Batches, chains and paging

struct User: Codable, Sendable {
    var id: Int
    var name: String
}

struct Registration: Codable, Sendable {
    var userID: Int
}

struct Article: Codable, Sendable {
    var id: Int
    var title: String
}

func batchWithHandlers(service: Service) {
    let batch = BatchRequest()
    let feed = batch.add(Request(path: "/feed", parser: ModelParser([Entrance].self,
                                                                 json: JSONParser(contentKeyPath: "content/entrance"))))
    let avatar = batch.add(Request(path: "/users/7/avatar.png"))
    let user = batch.add(Request(path: "/users/7", parser: ModelParser(User.self)))
    batch.addProgressHandler { _, progress in print("\(progress.completed) of \(progress.total) finished") }
    batch.addCompletionHandler { _, result in
        switch result {
        case .success(let values):
            print(values[feed]?.count ?? 0, values[avatar]?.count ?? 0, values[user]?.name ?? "")
        case .failure(.batchFailed(let index, _, let error)):
            print("request \(index) failed: \(error)")
        case .failure(let error):
            print("the batch failed: \(error)")
        }
    }
    service.start(batch)
}

func batchAwaited(service: Service) async throws -> ([Entrance], User?) {
    let batch = BatchRequest()
    let feed = batch.add(Request(path: "/feed", parser: ModelParser([Entrance].self)))
    let user = batch.add(Request(path: "/users/7", parser: ModelParser(User.self)))
    let values = try await service.send(batch)
    return (values[feed] ?? [], values[user])
}

func batchFailure(service: Service, batch: BatchRequest) async {
    do {
        let values = try await service.send(batch)
        print(values.all)
    } catch .batchFailed(let index, _, let error) {
        print("request \(index) failed: \(error)")
    } catch {
        print("the batch failed: \(error)")
    }
}

func batchWithAsyncLet(service: Service) async throws {
    async let feed = service.send(Request(path: "/feed", parser: ModelParser([Entrance].self)))
    async let user = service.send(Request(path: "/users/7", parser: ModelParser(User.self)))
    let (entrances, profile) = try await (feed, user)
    print(entrances.count, profile.name)
}

func batchWithTaskGroup(service: Service, ids: [Int]) async throws -> [Int: Data] {
    try await withThrowingTaskGroup(of: (Int, Data).self) { group in
        for id in ids {
            group.addTask { (id, try await service.send(Request(path: "/thumbnails/\(id)"))) }
        }
        var thumbnails: [Int: Data] = [:]
        for try await (id, data) in group { thumbnails[id] = data }
        return thumbnails
    }
}

func chainWithCallbacks(service: Service) {
    let chain = ChainRequest()
    chain.add(Request(path: "/register", method: .post, parameters: ["name": "ada"],
                      parser: ModelParser(Registration.self))) { chain, registration in
        chain.add(Request(path: "/users/\(registration.userID)", parser: ModelParser(User.self)))
    }
    chain.addCompletionHandler { _, result in
        switch result {
        case .success(let values):
            if let user = values.all.last as? User { print("registered \(user.name)") }
        case .failure(.chainFailed(let step, _, let error)):
            print("step \(step) failed: \(error)")
        case .failure(let error):
            print("the chain failed: \(error)")
        }
    }
    service.start(chain)
}

func chainAwaited(service: Service) async throws -> User {
    let registration = try await service.send(Request(path: "/register", method: .post, parameters: ["name": "ada"],
                                                      parser: ModelParser(Registration.self)))
    let user = try await service.send(Request(path: "/users/\(registration.userID)", parser: ModelParser(User.self)))
    return user
}

func pagerToTheEnd(service: Service) async throws {
    // {"code": 0, "data": {"items": [{"id": 1, "title": "…"}, …], "total": 45}}
    let pager = Pager(service: service, path: "/articles", parameters: ["tag": "swift"],
                      paging: Paging(pageSize: 20),
                      parser: PageParser(Article.self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data"),
                                         items: "items", lastPage: .totalCount(at: "total")))
    let first = try await pager.loadFirstPage()          // GET /articles?tag=swift&page=1&size=20
    print(first.items.count, first.isLast)
    while pager.hasMorePages {
        try await pager.loadNextPage()                   // page=2, then page=3
    }
    print(pager.items.count)
}

func pagingOptions() {
    let numbered = Paging(pageSize: 50, position: .pageNumber(parameter: "p", first: 0), pageSizeParameter: "per_page")
    let offsets = Paging(pageSize: 30, position: .offset(parameter: "start"), pageSizeParameter: "limit")
    let flagged = PageParser(Article.self, items: "data/list", lastPage: .hasMoreFlag(at: "data/has_more"))
    let unmarked = PageParser(Article.self, items: "results")     // a short page is the last
    _ = (numbered, offsets, flagged, unmarked)
}

func show(_ articles: [Article]) {}
func showRetryButton(_ error: NetworkError) {}

func listDidScrollToEnd(pager: Pager<Article>) async {
    do {
        let page = try await pager.loadNextPage()
        show(page.items)
    } catch .pageAlreadyLoading, .noMorePages {
        return                                  // nothing was sent
    } catch {
        showRetryButton(error)                  // the next call asks for the same page again
    }
}

func pagerOfPosts(service: Service) -> Pager<Article> {
    let pager = Pager(service: service, paging: Paging(pageSize: 20)) {
        let request = Request(path: "/search", method: .post, parameters: ["q": "swift"],
                              parser: PageParser(Article.self, items: "hits", lastPage: .hasMoreFlag(at: "more")))
        request.body = .json
        return request
    }
    return pager
}

func pagerWithCallbacks(pager: Pager<Article>) {
    pager.loadNextPage { result in
        switch result {
        case .success(let page): print("page \(page.index): \(page.items.count) articles, last: \(page.isLast)")
        case .failure(let error): print(error)
        }
    }
}
