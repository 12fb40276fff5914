import FixtureServer
import Foundation
import NetworkKit

/// `nk demo`: a batch of requests of different types, a chain whose steps use the step before,
/// and a list loaded page after page.
extension DemoTour {
    var batchSteps: [Step] {
        [
            ("Batch: bytes, JSON, text and models as one, values in order, typed by their requests", {
                let batch = BatchRequest()
                let bytes = batch.add(Request(path: "/bytes?count=512"))
                let id = batch.add(Request(path: "/json/small", parser: JSONParser(contentKeyPath: "content/id")))
                let text = batch.add(Request(path: "/text", parser: StringParser()))
                let feed = batch.add(Request(path: "/json/feed", parser: ModelParser(
                    [DemoEntrance].self, json: JSONParser(contentKeyPath: "content/entrance"))))
                let finished = Protected(0)
                batch.addProgressHandler { _, progress in finished.withLock { $0 = progress.completed } }
                let values = try await service.completion(of: batch).get()
                let failing = BatchRequest()
                failing.add(Request(path: "/slow?ms=2000"))
                failing.add(Request(path: "/status/503"))
                let failure = await service.result(of: failing)
                guard case .failure(let error) = failure else { throw DemoError.unexpected("\(failure)") }
                return "\(values[bytes]?.count ?? 0) bytes, id \(values[id] ?? nil), \"\(values[text] ?? "")\", "
                    + "\(values[feed]?.count ?? 0) entrances (\(finished.snapshot)/4 finished); "
                    + "a batch with a 503 fails at once: \(error)"
            }),
            ("Chain: each step's path is built from the value of the one before", {
                let key = "demo-chain-\(UUID().uuidString.prefix(8))"
                let chain = ChainRequest()
                chain.add(Request(path: "/json/small", parser: JSONParser(contentKeyPath: "content/id"))) { chain, id in
                    chain.add(Request(path: "/count/\(key)-\(id)", parser: JSONParser(contentKeyPath: "hit"))) { chain, _ in
                        chain.add(Request(path: "/hits/\(key)-\(id)", parser: JSONParser(contentKeyPath: "hits")))
                    }
                }
                let values = try await service.send(chain)
                let steps = values.all.map { "\($0)" }.joined(separator: " → ")
                return "id → hit → hits: \(steps)"
            }),
            ("Paging: 45 items, 10 a page, page 3 failing once and asked for again", {
                let key = "demo-pages-\(UUID().uuidString.prefix(8))"
                let parser = PageParser(DemoPagedItem.self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data"),
                                        items: "items", lastPage: .totalCount(at: "total"))
                let pager = Pager(service: service, path: "/pages/\(key)?failOnce=3", paging: Paging(pageSize: 10),
                                  parser: parser)
                var pages: [String] = []
                try await pager.loadFirstPage()
                pages.append("1")
                while pager.hasMorePages, pages.count < 20 {   // bounded: a server that keeps failing ends the step
                    do {
                        let page = try await pager.loadNextPage()
                        pages.append("\(page.index + 1)")
                    } catch {
                        pages.append("(\(error))")
                    }
                }
                let ids = pager.items.map(\.id)
                let inOrder = ids == Array(1...45)
                return "pages \(pages.joined(separator: ", ")); \(ids.count) items, in order without gaps: \(inOrder); "
                    + "then loadNextPage: \(await refusal(of: pager))"
            }),
        ]
    }

    /// Why a pager at its end refuses the next page.
    private func refusal(of pager: Pager<DemoPagedItem>) async -> String {
        do {
            try await pager.loadNextPage()
            return "loaded a page past the end"
        } catch {
            return "\(error)"
        }
    }
}

/// An item of the fixture's paged list.
struct DemoPagedItem: Decodable, Sendable {
    var id: Int
    var title: String
}
