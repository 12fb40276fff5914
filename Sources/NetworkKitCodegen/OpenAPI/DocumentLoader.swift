#if CodeGeneration
import Foundation
import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat
import Yams

/// Reads an OpenAPI 3.0 or 3.1 document, YAML or JSON, with OpenAPIKit (3.0 documents are
/// converted to 3.1 by OpenAPIKitCompat), so the generator sees one model.
///
/// The text is read once, with Yams, which keeps the document's order of paths and properties
/// (Foundation's JSON decoder does not) and each value's line. `DocumentMender` mends the common
/// mistakes first. A schema OpenAPIKit still cannot read is read as any JSON value, and keys it
/// does not know (neither OpenAPI's nor extensions) are ignored, each with a warning, up to
/// `maxRetries` of them; anything else it cannot read is an error at its line.
enum DocumentLoader {
    /// A document read, where it came from, and what was changed to read it.
    struct Loaded {
        var document: OpenAPIKit.OpenAPI.Document
        var source: SourceFile
        var warnings: [GeneratorWarning]
        /// How long reading, mending and decoding took.
        var phases: [(name: String, duration: Duration)]
    }

    /// How many schemas OpenAPIKit cannot read, and objects with keys it does not know, are mended
    /// (each costs decoding the document again) before the document counts as broken.
    static let maxRetries = 50

    /// The document in `text`; `file` names it in messages.
    static func load(_ text: String, file: String) throws -> Loaded {
        let isJSON = file.lowercased().hasSuffix(".json")
        let clock = ContinuousClock()
        var phases: [(name: String, duration: Duration)] = []
        var start = clock.now
        func lap(_ name: String) {
            phases.append((name, clock.now - start))
            start = clock.now
        }
        let root: Node
        do {
            // The resolver the decoder uses: scalars stay text until a type asks for them.
            root = try Yams.compose(yaml: text, Resolver.basic.appending(.merge)) ?? Node.mapping(Node.Mapping([]))
        } catch {
            throw GeneratorError(file: file, line: YAMLErrors.line(of: error),
                                 message: "not valid \(isJSON ? "JSON" : "YAML"): \(YAMLErrors.summary(of: error))")
        }
        lap("read")
        let source = SourceFile(path: file, locator: SourceLocator(root: root))
        guard case .mapping(let top) = root, let versionNode = top["openapi"] else {
            throw source.error(at: JSONPointer(), "not an OpenAPI document: missing key \"openapi\"")
        }
        let version = versionNode.string ?? ""
        let isVersion30 = version.hasPrefix("3.0.")
        guard isVersion30 || version.hasPrefix("3.1.") || version.hasPrefix("3.2.") else {
            throw source.error(at: JSONPointer(["openapi"]), "unsupported OpenAPI version \(version) (3.0.x and 3.1.x are supported)")
        }
        var mender = DocumentMender(isVersion30: isVersion30, source: source)
        var mended = mender.mend(root)
        var warnings = mender.warnings
        lap("mend")
        while true {
            do {
                let document = isVersion30 ? try SplitDecoding.decode30(mended) : try SplitDecoding.decode31(mended)
                lap("decode")
                return Loaded(document: document, source: source, warnings: warnings, phases: phases)
            } catch {
                let (prefix, underlying) = (error as? SplitDecoding.EntryError).map { ($0.prefix, $0.underlying) } ?? ([], error)
                let described = OpenAPIKit.OpenAPI.Error(from: underlying)
                let pointer = JSONPointer(prefix + described.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue })
                let failure = GeneratorError(file: file, line: source.locator.line(of: pointer),
                                             pointer: pointer.keys.isEmpty ? nil : pointer.description,
                                             message: "invalid OpenAPI document: \(described.localizedDescription)")
                let retries = warnings.count { $0.kind == .unreadableSchema || $0.kind == .unknownKeys }
                guard retries < maxRetries else { throw failure }
                if let keys = Self.unknownKeys(in: described.localizedDescription),
                   let node = mended.value(at: pointer.keys), case .mapping(let mapping) = node,
                   let replaced = mended.replacing(at: pointer.keys[...], with: .mapping(Node.Mapping(
                       mapping.filter { !keys.contains($0.key.string ?? "") }.map { ($0.key, $0.value) }, mapping.tag, mapping.style, mapping.mark))) {
                    mended = replaced
                    warnings.append(source.warning(.unknownKeys, at: pointer,
                                                   "keys that are neither OpenAPI's nor extensions (x-…): \(keys.joined(separator: ", ")): ignored"))
                } else if let schema = Self.enclosingSchema(of: pointer),
                          let replaced = mended.replacing(at: schema.keys[...], with: Self.anyValue) {
                    mended = replaced
                    warnings.append(source.warning(.unreadableSchema, at: pointer,
                                                   "a schema OpenAPIKit cannot read (\(described.localizedDescription)): read as any JSON value"))
                } else {
                    throw failure
                }
            }
        }
    }

    /// The keys OpenAPIKit named as neither its own nor extensions, from its message.
    static func unknownKeys(in message: String) -> [String]? {
        guard message.lowercased().contains("vendor extension"), let open = message.range(of: "Invalid properties: ["),
              let close = message[open.upperBound...].firstIndex(of: "]") else { return nil }
        let keys = message[open.upperBound..<close].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return keys.isEmpty ? nil : keys
    }

    /// The deepest schema `pointer` is in, if any.
    static func enclosingSchema(of pointer: JSONPointer) -> JSONPointer? {
        var position = DocumentMender.Position.other
        var found: Int?
        for (index, key) in pointer.keys.enumerated() {
            if position == .schema, Int(key) != nil {
                // An element of allOf, anyOf, oneOf or prefixItems: still a schema.
            } else {
                position = DocumentMender.position(of: key, in: position)
            }
            if position == .schema { found = index + 1 }
        }
        return found.map { JSONPointer(Array(pointer.keys.prefix($0))) }
    }

    /// `{}`: a schema any JSON value matches.
    private static var anyValue: Node { .mapping(Node.Mapping([])) }
}

extension Node {
    /// This node with the value at `keys` replaced, or nil when there is no such value.
    func replacing(at keys: ArraySlice<String>, with value: Node) -> Node? {
        guard let key = keys.first else { return value }
        switch self {
        case .mapping(let mapping):
            var pairs = mapping.map { ($0.key, $0.value) }
            guard let index = pairs.firstIndex(where: { $0.0.string == key }),
                  let child = pairs[index].1.replacing(at: keys.dropFirst(), with: value) else { return nil }
            pairs[index].1 = child
            return .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
        case .sequence(let sequence):
            var nodes = Array(sequence)
            guard let index = Int(key), nodes.indices.contains(index),
                  let child = nodes[index].replacing(at: keys.dropFirst(), with: value) else { return nil }
            nodes[index] = child
            return .sequence(Node.Sequence(nodes, sequence.tag, sequence.style, sequence.mark))
        case .scalar, .alias:
            return nil
        }
    }
}
#endif
