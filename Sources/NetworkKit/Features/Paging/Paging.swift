/// How a `Pager` asks for a page: the page size, and the parameters it adds to each page's request.
///
/// ```swift
/// Paging(pageSize: 20)                                               // ?page=1&size=20, ?page=2&size=20…
/// Paging(pageSize: 50, position: .pageNumber(parameter: "p", first: 0), pageSizeParameter: "per_page")
/// Paging(pageSize: 30, position: .offset(parameter: "start"), pageSizeParameter: "limit")  // ?start=0&limit=30, ?start=30…
/// ```
public struct Paging: Sendable, Hashable {
    /// Where the next page starts, as the server wants it said.
    public enum Position: Sendable, Hashable {
        /// A page number in `parameter`, counting from `first` (1 unless said).
        case pageNumber(parameter: String = "page", first: Int = 1)
        /// The number of items loaded so far, in `parameter`.
        case offset(parameter: String = "offset")
    }

    /// How many items a page holds; a shorter page is the last when the answer says nothing else.
    public var pageSize: Int
    /// The page number or offset parameter.
    public var position: Position
    /// The parameter the page size is sent in; nil sends none.
    public var pageSizeParameter: String?

    /// Creates a paging description: page numbers from 1 in `page`, the size in `size`.
    public init(pageSize: Int = 20, position: Position = .pageNumber(), pageSizeParameter: String? = "size") {
        self.pageSize = max(1, pageSize)
        self.position = position
        self.pageSizeParameter = pageSizeParameter
    }

    /// The parameters of the page after `loadedPages` pages holding `loadedItems` items.
    func parameters(loadedPages: Int, loadedItems: Int) -> [String: JSON] {
        var parameters: [String: JSON] = [:]
        switch position {
        case .pageNumber(let name, let first):
            parameters[name] = .int(Int64(first + loadedPages))
        case .offset(let name):
            parameters[name] = .int(Int64(loadedItems))
        }
        if let pageSizeParameter { parameters[pageSizeParameter] = .int(Int64(pageSize)) }
        return parameters
    }
}
