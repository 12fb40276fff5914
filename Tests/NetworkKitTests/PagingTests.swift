import Foundation
import Testing
import FixtureServer
@testable import NetworkKit

/// One item of the fixture's paged list.
struct PagedItem: Codable, Sendable, Equatable {
    var id: Int
    var title: String
}

/// AIFNetworking's paged API manager as `Pager`, against the fixture's `/pages/KEY` list.
@Suite("Paging")
struct PagingTests {
    /// A pager of `/pages/KEY` with `query` (the fixture's options), parsed for `rule`.
    func pager(_ fixture: Fixture, key: String, query: String = "", paging: Paging = Paging(pageSize: 10),
               rule: LastPageRule = .totalCount(at: "total")) -> Pager<PagedItem> {
        let parser = PageParser(PagedItem.self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data"),
                                items: "items", lastPage: rule)
        return Pager(service: fixture.service, path: "/pages/\(key)?\(query)", paging: paging, parser: parser)
    }

    /// A pager of `path` whose requests wait at `gate` while `held` is true, parsed for `rule`.
    func gatedPager(_ fixture: Fixture, path: String, rule: LastPageRule, gate: Gate,
                    held: Protected<Bool>) -> Pager<PagedItem> {
        let parser = PageParser(PagedItem.self, json: JSONParser(contentKeyPath: "data"), items: "items", lastPage: rule)
        return Pager(service: fixture.service, paging: Paging(pageSize: 10)) {
            let request = Request(path: path, parser: parser)
            if held.snapshot { request.interceptors = [gate] }
            return request
        }
    }

    static let lastPageRules: [(style: String, rule: LastPageRule, total: Int)] = [
        ("total", .totalCount(at: "total"), 45),
        ("hasMore", .hasMoreFlag(at: "hasMore"), 45),
        ("hasMore", .hasMoreFlag(at: "hasMore"), 40),
        ("short", .shortPage, 45),
        ("short", .shortPage, 40),   // the last full page is not known to be last: an empty page ends it
    ]

    @Test(arguments: 0..<PagingTests.lastPageRules.count)
    func pagingRunsToTheLastPageAndStopsThere(_ index: Int) async throws {
        let (style, rule, total) = Self.lastPageRules[index]
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let key = "end-\(index)"
        let pager = pager(fixture, key: key, query: "style=\(style)&total=\(total)", rule: rule)
        var loads: [LoadedPage<PagedItem>] = [try await pager.loadFirstPage()]
        while pager.hasMorePages {
            loads.append(try await pager.loadNextPage())
        }
        let pages = style == "short" && total % 10 == 0 ? total / 10 + 1 : (total + 9) / 10
        #expect(loads.map(\.index) == Array(0..<pages))
        #expect(loads.map(\.isLast) == Array(repeating: false, count: pages - 1) + [true])
        #expect(pager.items.map(\.id) == Array(1...total))
        #expect(pager.loadedPageCount == pages && pager.hasLoadedLastPage)
        // At the end a next page is refused and nothing is sent.
        do {
            try await pager.loadNextPage()
            Issue.record("a page past the last was let through")
        } catch {
            guard case .noMorePages = error else { Issue.record("got \(error)"); return }
        }
        #expect(fixture.server.hits.count(key) == pages)
        // loadFirstPage starts over; the list is replaced when the first page arrives.
        let first = try await pager.loadFirstPage()
        #expect(first.index == 0 && pager.items.map(\.id) == Array(1...10) && pager.hasMorePages)
    }

    @Test func aSecondLoadIsRefusedWhileAPageIsLoading() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let gate = Gate()
        defer { gate.open() }
        let pager = gatedPager(fixture, path: "/pages/refused", rule: .totalCount(at: "total"), gate: gate,
                               held: Protected(true))
        let firstPage = Task { try await pager.loadNextPage() }
        await gate.arrivals(1)
        #expect(pager.isLoading)
        do {
            try await pager.loadNextPage()
            Issue.record("a second page was let through")
        } catch {
            guard case .pageAlreadyLoading = error else { Issue.record("got \(error)"); return }
        }
        let refused = await withCheckedContinuation { continuation in
            pager.loadNextPage { continuation.resume(returning: $0) }
        }
        guard case .failure(.pageAlreadyLoading) = refused else { Issue.record("got \(refused)"); return }
        gate.open()
        let page = try await firstPage.value
        #expect(page.items.map(\.id) == Array(1...10) && !pager.isLoading)
        #expect(fixture.server.hits.count("refused") == 1)
    }

    @Test func aFailedMiddlePageIsAskedForAgainWithoutSkippingOrRepeating() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let pager = pager(fixture, key: "retry", query: "failOnce=3")
        try await pager.loadFirstPage()
        try await pager.loadNextPage()
        do {
            try await pager.loadNextPage()
            Issue.record("page 3 did not fail")
        } catch {
            guard case .httpStatus(503, _, _) = error else { Issue.record("got \(error)"); return }
        }
        #expect(pager.items.map(\.id) == Array(1...20) && pager.loadedPageCount == 2 && !pager.isLoading)
        while pager.hasMorePages { try await pager.loadNextPage() }
        #expect(pager.items.map(\.id) == Array(1...45))
        let hits = fixture.server.hits
        #expect([0, 10, 20, 30, 40].map { hits.count("retry@\($0)") } == [1, 1, 2, 1, 1])
        #expect(hits.count("retry") == 6)
    }

    @Test func offsetsFirstPageIndexAndParameterNamesAreConfigurable() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let offsets = pager(fixture, key: "offsets", query: "offsetParam=start&sizeParam=limit&total=20",
                            paging: Paging(pageSize: 7, position: .offset(parameter: "start"), pageSizeParameter: "limit"))
        try await offsets.loadFirstPage()
        while offsets.hasMorePages { try await offsets.loadNextPage() }
        #expect(offsets.items.map(\.id) == Array(1...20))
        #expect([0, 7, 14].map { fixture.server.hits.count("offsets@\($0)") } == [1, 1, 1])

        let fromZero = pager(fixture, key: "from-zero", query: "pageParam=p&first=0&size=5&total=12",
                             paging: Paging(pageSize: 5, position: .pageNumber(parameter: "p", first: 0), pageSizeParameter: nil))
        try await fromZero.loadFirstPage()
        while fromZero.hasMorePages { try await fromZero.loadNextPage() }
        #expect(fromZero.items.map(\.id) == Array(1...12) && fromZero.loadedPageCount == 3)
        #expect(Paging(pageSize: 5).parameters(loadedPages: 2, loadedItems: 10) == ["page": 3, "size": 5])
    }

    @Test func theCallbackFormDeliversOnTheMainActor() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let pager = pager(fixture, key: "callbacks", query: "total=15")
        var loaded: [Int] = []
        for _ in 0..<2 {
            let result = await withCheckedContinuation { continuation in
                pager.loadNextPage { result in
                    #expect(MainQueue.isCurrent)
                    continuation.resume(returning: result)
                }
            }
            loaded += try result.get().items.map(\.id)
        }
        #expect(loaded == Array(1...15) && pager.hasLoadedLastPage)
        let refused = await withCheckedContinuation { continuation in
            pager.loadNextPage { continuation.resume(returning: $0) }
        }
        guard case .failure(.noMorePages) = refused else { Issue.record("got \(refused)"); return }
    }

    @Test func loadFirstPageStartsOverWhileAPageIsLoading() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let gate = Gate()
        defer { gate.open() }
        let held = Protected(false)
        let pager = gatedPager(fixture, path: "/pages/refresh", rule: .totalCount(at: "total"), gate: gate, held: held)
        try await pager.loadFirstPage()
        held.withLock { $0 = true }
        let second = Task { try await pager.loadNextPage() }
        await gate.arrivals(1)
        held.withLock { $0 = false }
        let refreshed = try await pager.loadFirstPage()
        #expect(refreshed.index == 0 && pager.items.map(\.id) == Array(1...10) && !pager.isLoading)
        gate.open()
        do {
            _ = try await second.value
            Issue.record("the replaced load succeeded")
        } catch {
            guard case NetworkError.cancelled = error else { Issue.record("got \(error)"); return }
        }
        #expect(pager.loadedPageCount == 1 && pager.items.count == 10)
        try await pager.loadNextPage()
        #expect(pager.items.map(\.id) == Array(1...20))
    }

    @Test func cancellingALoadKeepsThePageToAskForAgain() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let gate = Gate()
        defer { gate.open() }
        let held = Protected(true)
        let pager = gatedPager(fixture, path: "/pages/cancelled?style=hasMore", rule: .hasMoreFlag(at: "hasMore"),
                               gate: gate, held: held)
        let load = Task { try await pager.loadFirstPage() }
        await gate.arrivals(1)
        pager.cancel()
        gate.open()   // `send` runs the pipeline in the awaiting task: let it leave the interceptor
        do {
            _ = try await load.value
            Issue.record("the cancelled load succeeded")
        } catch {
            guard case NetworkError.cancelled = error else { Issue.record("got \(error)"); return }
        }
        #expect(pager.loadedPageCount == 0 && !pager.isLoading)
        held.withLock { $0 = false }
        let page = try await pager.loadNextPage()
        #expect(page.index == 0 && page.items.first?.id == 1)
    }
}
