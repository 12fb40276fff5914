import Foundation

/// Where an answer says that no page follows (see `PageParser`).
public enum LastPageRule: Sendable, Hashable {
    /// The list's total item count is at this key path: the page that reaches it is the last.
    case totalCount(at: JSONKeyPath)
    /// A Boolean (or 0/1) at this key path says whether more pages follow.
    case hasMoreFlag(at: JSONKeyPath)
    /// The answer says nothing: a page shorter than the page size is the last.
    case shortPage
}

/// Parses one page of a JSON list: checks the business code and takes the content as a
/// `JSONParser` does, converts the items at `itemsKeyPath` as ``ModelParser`` converts a model
/// (the type's converter in the registry, this parser's decoder, the service's, the registry's
/// default), and reads the total or the has-more flag that `lastPage` names. Key paths are
/// within the content.
///
/// ```swift
/// // {"code": 0, "data": {"items": [...], "total": 45}}
/// PageParser(Article.self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data"),
///            items: "items", lastPage: .totalCount(at: "total"))
/// ```
public struct PageParser<Item: Sendable>: ResponseParser {
    /// The JSON step: business-code check and the content key path.
    public var json: JSONParser
    /// Where the page's array of items is, within the content (empty: the content is the array).
    public var itemsKeyPath: JSONKeyPath
    /// How the answer says that no page follows.
    public var lastPage: LastPageRule
    /// Where item converters are looked up.
    public var registry: ModelRegistry
    /// The decoder of `Decodable` items, before the service's (see ``ModelParser``).
    public var decoder: JSONDecoder?

    /// A parser of pages of `type` items.
    public init(_ type: Item.Type, json: JSONParser = JSONParser(), items: JSONKeyPath,
                lastPage: LastPageRule = .shortPage, decoder: JSONDecoder? = nil, registry: ModelRegistry = .shared) {
        self.json = json
        itemsKeyPath = items
        self.lastPage = lastPage
        self.decoder = decoder
        self.registry = registry
    }

    /// Light: a small body parses in microseconds.
    public var isLightweight: Bool { true }

    /// The page: its items, converted one by one, and its total or has-more flag.
    public func parse(_ response: Response) throws -> Page<Item> {
        let content = try json.parse(response)
        let list = try content.value(at: itemsKeyPath, parser: "page")
        guard let elements = list.arrayValue else {
            throw ParseError(parser: "page", reason: "the items are a \(list.kindName), not an array",
                             keyPath: itemsKeyPath.description, kind: .keyPath)
        }
        let decoder = self.decoder ?? response.jsonDecoder
        let items = try elements.map { element in
            try (element as? Item) ?? registry.convert(element, to: Item.self, name: nil, decoder: decoder)
        }
        switch lastPage {
        case .totalCount(let path):
            return Page(items: items, totalCount: try number(at: path, in: content))
        case .hasMoreFlag(let path):
            return Page(items: items, hasMore: try flag(at: path, in: content))
        case .shortPage:
            return Page(items: items)
        }
    }

    private func number(at path: JSONKeyPath, in content: JSON) throws -> Int {
        let value = try content.value(at: path, parser: "page")
        guard let number = value.intValue, let count = Int(exactly: number), count >= 0 else {
            throw ParseError(parser: "page", reason: "the total count is \(value), not a count",
                             keyPath: path.description, kind: .keyPath)
        }
        return count
    }

    private func flag(at path: JSONKeyPath, in content: JSON) throws -> Bool {
        let value = try content.value(at: path, parser: "page")
        switch value {
        case .bool(let flag): return flag
        case .int(0), .int(1): return value == .int(1)
        default:
            throw ParseError(parser: "page", reason: "the has-more flag is \(value), not a Boolean",
                             keyPath: path.description, kind: .keyPath)
        }
    }
}
