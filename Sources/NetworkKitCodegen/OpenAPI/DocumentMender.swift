#if CodeGeneration
import Foundation
import Yams

/// Mends the common, well-understood mistakes of real OpenAPI documents before OpenAPIKit reads
/// them, each with a warning at its place:
/// - integer bounds outside `Int64` are clamped, and fractional ones rounded inward;
/// - boolean `exclusiveMinimum`/`exclusiveMaximum` in 3.1 become the bound itself, and numeric
///   ones in 3.0 become `minimum` with `exclusiveMinimum: true` (and the same for maximum);
/// - `nullable` in 3.1 becomes a `null` type; `type` arrays in 3.0 become `type` with `nullable`;
///   a `type` array of several non-null types is read as any JSON value;
/// - a boolean `required` on a schema is dropped;
/// - a path parameter is marked required, and a response without a description gets an empty one;
/// - schema keywords written straight into a media type object or a parameter (Swagger 2's form)
///   move into its `schema`, and Swagger 2's top-level keys (`host`, `basePath`…) are dropped;
/// - a schema with `$recursiveRef` or `$dynamicRef` is read as any JSON value.
///
/// Only schema positions are mended: examples, defaults, enums and extensions are data and stay
/// as they are.
struct DocumentMender {
    /// True for a 3.0 document, false for 3.1 and later.
    let isVersion30: Bool
    let source: SourceFile
    private(set) var warnings: [GeneratorWarning] = []

    init(isVersion30: Bool, source: SourceFile) {
        self.isVersion30 = isVersion30
        self.source = source
    }

    /// What a node is, as far as mending goes.
    enum Position {
        /// A schema object.
        case schema
        /// A map from names to schemas (`properties`, `components/schemas`).
        case schemaMap
        /// A map from status codes or names to responses.
        case responseMap
        /// A map from media types to media type objects (`content`).
        case contentMap
        /// Anything else of the document.
        case other
        /// Example or extension data: left alone.
        case data
    }

    /// `root` with every mend made.
    mutating func mend(_ root: Node) -> Node {
        var root = root
        // Swagger 2's keys left at the top of a document converted to OpenAPI 3.
        if case .mapping(let mapping) = root {
            let leftovers: Set<String> = ["swagger", "host", "basePath", "schemes", "consumes", "produces", "definitions",
                                          "securityDefinitions"]
            let found = mapping.keys.compactMap(\.string).filter(leftovers.contains)
            if !found.isEmpty {
                root = .mapping(Node.Mapping(mapping.filter { !found.contains($0.key.string ?? "") }.map { ($0.key, $0.value) },
                                             mapping.tag, mapping.style, mapping.mark))
                warn(.unknownKeys, at: JSONPointer(), "Swagger 2 keys in an OpenAPI 3 document: \(found.joined(separator: ", ")): ignored")
            }
        }
        return mend(root, as: .other, at: JSONPointer())
    }

    private mutating func mend(_ node: Node, as position: Position, at pointer: JSONPointer) -> Node {
        switch node {
        case .mapping(let mapping):
            var pairs = mapping.map { ($0.key, $0.value) }
            // Schema keywords in the wrong object move into its `schema` first, so that they are
            // then mended once, as the schema they are.
            switch position {
            case .contentMap: moveMediaTypeSchemas(&pairs, at: pointer)
            case .other: moveParameterSchema(&pairs, at: pointer)
            default: break
            }
            for index in pairs.indices {
                let name = pairs[index].0.string ?? ""
                let child = Self.position(of: name, in: position)
                if child != .data { pairs[index].1 = mend(pairs[index].1, as: child, at: pointer.appending(name)) }
            }
            switch position {
            case .schema: mendSchema(&pairs, at: pointer)
            case .other: requirePathParameter(&pairs, at: pointer)
            case .responseMap: mendResponses(&pairs, at: pointer)
            case .contentMap, .schemaMap, .data: break
            }
            return .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
        case .sequence(let sequence):
            let element: Position
            switch position {
            case .schema: element = .schema  // allOf, anyOf, oneOf, prefixItems
            case .data: return node
            default: element = .other
            }
            let nodes = sequence.enumerated().map { mend($0.element, as: element, at: pointer.appending($0.offset)) }
            return .sequence(Node.Sequence(nodes, sequence.tag, sequence.style, sequence.mark))
        case .scalar, .alias:
            return node
        }
    }

    /// The position of the value under `key` of a mapping at `position`.
    static func position(of key: String, in position: Position) -> Position {
        if key.hasPrefix("x-"), position != .schemaMap, position != .responseMap, position != .contentMap { return .data }
        switch position {
        case .schema:
            switch key {
            case "example", "examples", "default", "enum", "const": return .data
            case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas": return .schemaMap
            case "items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
                 "unevaluatedProperties", "unevaluatedItems", "additionalItems", "allOf", "anyOf", "oneOf", "prefixItems":
                return .schema
            default: return .other
            }
        case .schemaMap:
            return .schema
        case .responseMap, .contentMap:
            return .other
        case .other:
            switch key {
            case "schema": return .schema
            case "schemas": return .schemaMap
            case "responses": return .responseMap
            case "content": return .contentMap
            case "example", "examples", "default", "value", "securitySchemes": return .data
            default: return .other
            }
        case .data:
            return .data
        }
    }

    // MARK: Schemas

    private mutating func mendSchema(_ pairs: inout [(Node, Node)], at pointer: JSONPointer) {
        if let key = ["$recursiveRef", "$dynamicRef"].first(where: { pairs.has($0) }) {
            pairs.removeAll { !["title", "description"].contains($0.0.string ?? "") }
            warn(.dynamicReference, at: pointer.appending(key), "\(key) is not supported: read as any JSON value")
            return
        }
        if let required = pairs.value("required"), required.isBoolean {
            pairs.remove("required")
            warn(.schemaRequiredFlag, at: pointer.appending("required"),
                 "a boolean `required` on a schema has no meaning (list required properties in the object's `required`): dropped")
        }
        mendTypeArray(&pairs, at: pointer)
        if !isVersion30 { mendNullable(&pairs, at: pointer) }
        for (exclusive, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
            mendExclusiveBound(&pairs, exclusive: exclusive, bound: bound, at: pointer)
        }
        if pairs.typeNames.contains("integer") { mendIntegerBounds(&pairs, at: pointer) }
    }

    private mutating func mendTypeArray(_ pairs: inout [(Node, Node)], at pointer: JSONPointer) {
        guard case .sequence(let sequence)? = pairs.value("type") else { return }
        let names = sequence.compactMap(\.string)
        let types = names.filter { $0 != "null" }
        let hasNull = types.count < names.count
        if types.count > 1 {
            pairs.remove("type")
            if hasNull, isVersion30 { pairs.set("nullable", Node("true")) }
            warn(.typeArray, at: pointer.appending("type"),
                 "a value of several types (\(types.joined(separator: ", "))) has no single Swift type: read as any JSON value")
        } else if isVersion30 {
            if let only = types.first { pairs.set("type", Node(only)) } else { pairs.remove("type") }
            if hasNull { pairs.set("nullable", Node("true")) }
            warn(.typeArray, at: pointer.appending("type"), "a `type` array in an OpenAPI 3.0 document: read as `type` with `nullable`")
        }
    }

    private mutating func mendNullable(_ pairs: inout [(Node, Node)], at pointer: JSONPointer) {
        guard let nullable = pairs.value("nullable"), nullable.isBoolean else { return }
        pairs.remove("nullable")
        let at = pointer.appending("nullable")
        guard nullable.bool == true else {
            warn(.nullable, at: at, "`nullable` is not OpenAPI 3.1 (use a `null` type): dropped")
            return
        }
        warn(.nullable, at: at, "`nullable` is not OpenAPI 3.1: read as a `null` type")
        switch pairs.value("type") {
        case .scalar(let scalar)?:
            pairs.set("type", Node([Node(scalar.string), Self.quoted("null")]))
        case .sequence(let sequence)?:
            if !sequence.contains(where: { $0.string == "null" }) {
                pairs.set("type", Node(Array(sequence) + [Self.quoted("null")]))
            }
        default:
            // No type to widen ($ref, allOf…): any of the schema itself or null.
            let kept = ["title", "description", "deprecated", "readOnly", "writeOnly"]
            let inner = pairs.filter { !kept.contains($0.0.string ?? "") }
            pairs = pairs.filter { kept.contains($0.0.string ?? "") }
            let null = Node.mapping(Node.Mapping([(Node("type"), Self.quoted("null"))]))
            pairs.append((Node("anyOf"), Node([.mapping(Node.Mapping(inner)), null])))
        }
    }

    private mutating func mendExclusiveBound(_ pairs: inout [(Node, Node)], exclusive: String, bound: String, at pointer: JSONPointer) {
        guard let value = pairs.value(exclusive) else { return }
        let at = pointer.appending(exclusive)
        if isVersion30, value.number != nil {
            pairs.remove(exclusive)
            pairs.set(bound, value)
            pairs.set(exclusive, Node("true"))
            warn(.exclusiveBound, at: at, "a numeric \(exclusive) is OpenAPI 3.1: read as \(bound) with \(exclusive): true")
        } else if !isVersion30, value.isBoolean {
            pairs.remove(exclusive)
            if value.bool == true, let limit = pairs.value(bound) {
                pairs.remove(bound)
                pairs.set(exclusive, limit)
            }
            warn(.exclusiveBound, at: at, "a boolean \(exclusive) is OpenAPI 3.0: read as the OpenAPI 3.1 \(exclusive)")
        }
    }

    private mutating func mendIntegerBounds(_ pairs: inout [(Node, Node)], at pointer: JSONPointer) {
        for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"] {
            guard let value = pairs.value(key), let text = value.string, value.isPlainScalar, Int64(text) == nil,
                  let number = Double(text) else { continue }
            let at = pointer.appending(key)
            if key == "multipleOf" {
                if number.rounded() == number, abs(number) < 9.2e18 {
                    pairs.set(key, Node(String(Int64(number))))
                } else {
                    pairs.remove(key)
                    warn(.integerBound, at: at, "multipleOf \(text) of an integer is not a whole number: dropped")
                }
                continue
            }
            let lower = key.hasSuffix("inimum")
            let inward = lower ? number.rounded(.up) : number.rounded(.down)
            let clamped: Int64
            if inward >= 9.223372036854775807e18 {
                clamped = .max
            } else if inward <= -9.223372036854775808e18 {
                clamped = .min
            } else {
                clamped = Int64(inward)
            }
            pairs.set(key, Node(String(clamped)))
            if inward == number, abs(number) < 9.2e18 { continue }  // 1e3 or 100.0: the same number, written as an integer
            warn(.integerBound, at: at, "the integer bound \(text) is \(inward == number ? "outside Int64" : "not a whole number"): read as \(clamped)")
        }
    }

    // MARK: Parameters and responses

    /// Swagger 2's schema keywords on a parameter itself move into its `schema`.
    private mutating func moveParameterSchema(_ pairs: inout [(Node, Node)], at pointer: JSONPointer) {
        guard pairs.has("in"), pairs.has("name") else { return }
        let keywords: Set<String> = ["type", "format", "items", "enum", "default", "minimum", "maximum", "exclusiveMinimum",
                                     "exclusiveMaximum", "minLength", "maxLength", "pattern", "minItems", "maxItems",
                                     "uniqueItems", "multipleOf", "collectionFormat"]
        let moved = pairs.filter { keywords.contains($0.0.string ?? "") }
        guard !moved.isEmpty else { return }
        pairs.removeAll { keywords.contains($0.0.string ?? "") }
        var schema: [(Node, Node)] = []
        if case .mapping(let existing)? = pairs.value("schema") { schema = existing.map { ($0.key, $0.value) } }
        for (key, value) in moved where key.string != "collectionFormat" && !schema.has(key.string ?? "") {
            schema.append((key, value))
        }
        pairs.set("schema", .mapping(Node.Mapping(schema)))
        warn(.parameterSchema, at: pointer, "schema keywords directly in parameter \"\(pairs.value("name")?.string ?? "")\" "
             + "(\(moved.compactMap(\.0.string).joined(separator: ", "))): read as its schema")
    }

    /// A path parameter not marked required is marked so.
    private mutating func requirePathParameter(_ pairs: inout [(Node, Node)], at pointer: JSONPointer) {
        guard pairs.has("name"), pairs.value("in")?.string == "path", pairs.value("required")?.bool != true else { return }
        pairs.set("required", Node("true"))
        warn(.pathParameterRequired, at: pointer, "path parameter \"\(pairs.value("name")?.string ?? "")\" is not marked required; path parameters always are")
    }

    /// Responses without a description get an empty one (the description is required).
    private mutating func mendResponses(_ pairs: inout [(Node, Node)], at pointer: JSONPointer) {
        for index in pairs.indices {
            guard case .mapping(let response) = pairs[index].1, response["$ref"] == nil, response["description"] == nil else { continue }
            var fields = response.map { ($0.key, $0.value) }
            fields.insert((Node("description"), Self.quoted("")), at: 0)
            pairs[index].1 = .mapping(Node.Mapping(fields, response.tag, response.style, response.mark))
            let code = pairs[index].0.string ?? ""
            warn(.responseDescription, at: pointer.appending(code), "response \(code) has no description: read with an empty one")
        }
    }

    /// Schema keywords written straight into a media type object, without `schema:`, move into
    /// its schema.
    private mutating func moveMediaTypeSchemas(_ pairs: inout [(Node, Node)], at pointer: JSONPointer) {
        let keywords: Set<String> = ["type", "properties", "items", "$ref", "allOf", "anyOf", "oneOf", "additionalProperties"]
        for index in pairs.indices {
            guard case .mapping(let media) = pairs[index].1, media["schema"] == nil,
                  media.keys.contains(where: { keywords.contains($0.string ?? "") }) else { continue }
            let isMediaTypeField = { (key: Node) in ["example", "examples", "encoding"].contains(key.string ?? "") || (key.string ?? "").hasPrefix("x-") }
            var kept = media.filter { isMediaTypeField($0.key) }.map { ($0.key, $0.value) }
            let schema = media.filter { !isMediaTypeField($0.key) }.map { ($0.key, $0.value) }
            kept.append((Node("schema"), .mapping(Node.Mapping(schema, media.tag, media.style, media.mark))))
            pairs[index].1 = .mapping(Node.Mapping(kept, media.tag, media.style, media.mark))
            warn(.mediaTypeSchema, at: pointer.appending(pairs[index].0.string ?? ""),
                 "schema keywords directly in a media type object (without `schema:`): read as its schema")
        }
    }

    private mutating func warn(_ kind: GeneratorWarning.Kind, at pointer: JSONPointer, _ message: String) {
        warnings.append(source.warning(kind, at: pointer, message))
    }

    /// A string scalar that YAML reads as a string, whatever its text.
    static func quoted(_ text: String) -> Node {
        Node(text, .implicit, .doubleQuoted)
    }
}

extension [(Node, Node)] {
    func has(_ key: String) -> Bool { contains { $0.0.string == key } }
    func value(_ key: String) -> Node? { first { $0.0.string == key }?.1 }
    mutating func remove(_ key: String) { removeAll { $0.0.string == key } }
    mutating func set(_ key: String, _ value: Node) {
        if let index = firstIndex(where: { $0.0.string == key }) { self[index].1 = value } else { append((Node(key), value)) }
    }

    /// The `type` names of a schema: one, several, or none.
    var typeNames: [String] {
        switch value("type") {
        case .scalar(let scalar)?: return [scalar.string]
        case .sequence(let sequence)?: return sequence.compactMap(\.string)
        default: return []
        }
    }
}

extension Node {
    /// A plain `true` or `false`.
    var isBoolean: Bool { isPlainScalar && bool != nil }

    /// A scalar written without quotes (numbers and booleans in YAML and JSON).
    var isPlainScalar: Bool {
        if case .scalar(let scalar) = self { return scalar.style == .plain || scalar.style == .any }
        return false
    }

    /// The number of a plain scalar.
    var number: Double? { isPlainScalar ? string.flatMap(Double.init) : nil }
}
#endif
