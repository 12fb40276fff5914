#if CodeGeneration
import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat
import Yams

/// Decodes a document with OpenAPIKit through Yams, its two large maps (`paths` and
/// `components/schemas`) one entry at a time.
///
/// Yams finds a key of a mapping by comparing it with every key, and OpenAPIKit reads a map by
/// listing its keys and then asking for each: a map of n entries costs n² comparisons. Decoding
/// its entries separately, from their own nodes, keeps that linear, and the entries stay in the
/// document's order.
///
/// Vendor extensions (`x-…`) are not decoded: the generator reads none, and OpenAPIKit reads them
/// by decoding every object a second time as a dictionary of any values, which for nested
/// schemas costs time in proportion to their depth. Keys that are neither OpenAPI's nor
/// extensions are then ignored as extensions are.
enum SplitDecoding {
    /// The options every decode uses.
    private static var userInfo: [CodingUserInfoKey: Any] {
        // OpenAPIKit30's key has the same raw value.
        [OpenAPIKit.VendorExtensionsConfiguration.enabledKey: false]
    }

    /// An error decoding an entry, with the keys from the document's root to the entry.
    struct EntryError: Error {
        var prefix: [String]
        var underlying: any Error
    }

    /// Maps smaller than this are decoded with the rest of the document.
    static let threshold = 32

    /// A 3.1 document.
    static func decode31(_ root: Node) throws -> OpenAPIKit.OpenAPI.Document {
        let (stripped, paths, schemas) = split(root)
        var document = try YAMLDecoder().decode(OpenAPIKit.OpenAPI.Document.self, from: stripped, userInfo: userInfo)
        for (key, value) in try entries(paths, at: ["paths"], as: OpenAPIKit.OpenAPI.PathItem.Map.Value.self, inline: { .b($0) }) {
            document.paths[OpenAPIKit.OpenAPI.Path(rawValue: key)] = value
        }
        try fill(&document.components.schemas, schemas, at: ["components", "schemas"])
        return document
    }

    /// A 3.0 document, converted to 3.1.
    static func decode30(_ root: Node) throws -> OpenAPIKit.OpenAPI.Document {
        let (stripped, paths, schemas) = split(root)
        var document = try YAMLDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: stripped, userInfo: userInfo)
        for (key, value) in try entries(paths, at: ["paths"], as: OpenAPIKit30.OpenAPI.PathItem.Map.Value.self, inline: { .b($0) }) {
            document.paths[OpenAPIKit30.OpenAPI.Path(rawValue: key)] = value
        }
        try fill(&document.components.schemas, schemas, at: ["components", "schemas"])
        return document.convert(to: .v3_1_0)
    }

    /// `root` with `paths` and `components/schemas` emptied when they are large, and those two
    /// maps (empty ones when they were left in place). The other component maps of real
    /// documents are small enough to decode whole.
    static func split(_ root: Node) -> (stripped: Node, paths: Node, schemas: Node) {
        var stripped = root
        var taken: [Node] = []
        for path in [["paths"], ["components", "schemas"]] {
            guard let node = root.value(at: path), case .mapping(let mapping) = node, mapping.count >= threshold,
                  let emptied = stripped.replacing(at: path[...], with: .mapping(Node.Mapping([], mapping.tag, mapping.style, mapping.mark))) else {
                taken.append(.mapping(Node.Mapping([])))
                continue
            }
            stripped = emptied
            taken.append(node)
        }
        return (stripped, taken[0], taken[1])
    }

    private static func fill<Value: Decodable>(_ dictionary: inout OrderedDictionary<OpenAPIKit.OpenAPI.ComponentKey, Value>, _ node: Node, at path: [String]) throws {
        for (key, value) in try entries(node, at: path, as: Value.self) {
            guard let componentKey = OpenAPIKit.OpenAPI.ComponentKey(rawValue: key) else {
                throw EntryError(prefix: path + [key], underlying: DecodingError.dataCorrupted(.init(
                    codingPath: [], debugDescription: "Keys for components in the Components Object must conform to the regex `^[a-zA-Z0-9\\.\\-_]+$`. `\(key)` does not..")))
            }
            dictionary[componentKey] = value
        }
    }

    /// The entries of a mapping, each decoded from its own node.
    private static func entries<Value: Decodable>(_ node: Node, at path: [String], as type: Value.Type) throws -> [(String, Value)] {
        try entries(node, at: path, as: type, inline: Optional<(Value) -> Value>.none)
    }

    /// The entries of a mapping of references or values, each decoded from its own node; an
    /// entry without `$ref` is decoded as `Inline`, so its error is the value's own rather than
    /// "neither a reference nor a value".
    private static func entries<Value: Decodable, Inline: Decodable>(
        _ node: Node, at path: [String], as type: Value.Type, inline: ((Inline) -> Value)?
    ) throws -> [(String, Value)] {
        guard case .mapping(let mapping) = node else { return [] }
        let decoder = YAMLDecoder()
        return try mapping.map { key, value in
            let name = key.string ?? ""
            do {
                if let inline, value.mapping?["$ref"] == nil {
                    return (name, inline(try decoder.decode(Inline.self, from: value, userInfo: userInfo)))
                }
                return (name, try decoder.decode(Value.self, from: value, userInfo: userInfo))
            } catch {
                throw EntryError(prefix: path + [name], underlying: error)
            }
        }
    }
}

extension Node {
    /// The value at `keys` of nested mappings, if there is one.
    func value(at keys: [String]) -> Node? {
        var node = self
        for key in keys {
            guard case .mapping(let mapping) = node, let next = mapping.first(where: { $0.key.string == key })?.value else { return nil }
            node = next
        }
        return node
    }
}
#endif
