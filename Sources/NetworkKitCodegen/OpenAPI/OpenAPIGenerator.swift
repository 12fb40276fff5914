#if CodeGeneration
import Foundation
import OpenAPIKit

/// Generates NetworkKit requests and `Codable` models from an OpenAPI 3.0 or 3.1 document.
///
/// ```swift
/// let output = try OpenAPIGenerator.generate(document: text, fileName: "openapi.yaml", config: config)
/// try output.source.write(to: file, atomically: true, encoding: .utf8)
/// ```
/// A document the generator cannot turn into correct Swift throws a `GeneratorError` naming the
/// file, the line and the JSON pointer of the problem.
public enum OpenAPIGenerator {
    /// What a run produced: the Swift source and the warnings.
    public struct Output: Sendable {
        /// The generated Swift files: one, or as many as asked for.
        public var files: [String]
        /// The generated Swift, all files in one.
        public var source: String { files.joined(separator: "\n") }
        /// What was mended, degraded to `JSON` or skipped, in the document's order of reading.
        public var warnings: [GeneratorWarning]
        /// The number of the document's operations that have a request function.
        public var operationCount: Int
        /// The number of those that also have a `…Stream` function (JSON and a stream offered).
        public var streamVariantCount: Int
        /// How long each step took: read, mend, decode, translate, emit.
        public var phases: [(name: String, duration: Duration)]
    }

    /// Generates from the document in `text`, into `files` Swift files (see
    /// `APIEmitter.emit(files:)`). `fileName` names it in errors and in the generated header (use
    /// the path a person should open).
    public static func generate(document text: String, fileName: String, config: GeneratorConfig = GeneratorConfig(),
                                files: Int = 1) throws -> Output {
        let loaded = try DocumentLoader.load(text, file: fileName)
        let clock = ContinuousClock()
        var start = clock.now
        let document = loaded.document
        let source = loaded.source
        let namespace = config.name.map(SwiftNames.type) ?? SwiftNames.type(document.info.title)
        var schemas = SchemaTranslator(document: document, source: source)
        var models = try schemas.componentDeclarations()
        var operations = OperationTranslator(schemas: schemas, config: config, source: source, namespace: namespace)
        let declarations = try operations.operations()
        models += operations.inlineTypes
        schemas = operations.schemas
        var recursion = RecursionBreaker(source: source, schemas: schemas)
        models = recursion.run(models)
        let translated = clock.now - start
        start = clock.now
        let access = config.access == "internal" ? "" : "public "
        let emitter = APIEmitter(namespace: namespace, access: access,
                                 sourceName: URL(fileURLWithPath: fileName).lastPathComponent,
                                 title: document.info.title, summary: document.info.description?.trimmed,
                                 version: document.info.version, operations: declarations, models: models,
                                 usesDates: schemas.usesDates, usesPathSegments: operations.usesPathSegments)
        let sources = emitter.emit(files: max(files, 1))
        return Output(files: sources, warnings: loaded.warnings + operations.schemas.warnings + operations.warnings + recursion.warnings,
                      operationCount: declarations.count { !$0.isStreamVariant },
                      streamVariantCount: declarations.count(where: \.isStreamVariant),
                      phases: loaded.phases + [("translate", translated), ("emit", clock.now - start)])
    }

    /// Generates from the document at `input`, with the configuration at `config` if given.
    public static func generate(input: URL, config: URL?, files: Int = 1) throws -> Output {
        let configuration = try config.map(GeneratorConfig.load(from:)) ?? GeneratorConfig()
        let text: String
        do {
            text = try String(contentsOf: input, encoding: .utf8)
        } catch {
            throw GeneratorError(file: input.path, message: "cannot read the document: \(error.localizedDescription)")
        }
        return try generate(document: text, fileName: input.path, config: configuration, files: files)
    }
}

/// Types that contain themselves through properties that are not arrays or dictionaries have no
/// finite size in Swift. A `oneOf` enum on such a cycle is made `indirect`, which boxes its
/// cases; in a cycle of structs alone, the property that closes it is read as `JSON`, with a
/// warning.
struct RecursionBreaker {
    let source: SourceFile
    let schemas: SchemaTranslator
    private(set) var warnings: [GeneratorWarning] = []

    init(source: SourceFile, schemas: SchemaTranslator) {
        self.source = source
        self.schemas = schemas
    }

    /// `models` with every cycle broken.
    mutating func run(_ models: [ModelDeclaration]) -> [ModelDeclaration] {
        var models = models
        var fields: [String: [String]] = [:]
        var enums: [String: [String]] = [:]
        func collect(_ declaration: ModelDeclaration) {
            switch declaration {
            case .structure(let structure):
                fields[structure.name] = structure.properties.map { Self.bare($0.type) }.filter { !$0.hasPrefix("[") }
                structure.nested.forEach(collect)
            case .oneOf(let oneOf):
                enums[oneOf.name] = oneOf.cases.map { Self.bare($0.type) }.filter { !$0.hasPrefix("[") }
                oneOf.nested.forEach(collect)
            case .alias(let name, _, let type):
                fields[name] = type.hasPrefix("[") ? [] : [Self.bare(type)]
            case .rawEnum:
                break
            }
        }
        models.forEach(collect)
        // Enums on a cycle are boxed; what is left are cycles of structs and aliases.
        let edges = fields.merging(enums) { $1 }
        let cyclic = Self.typesOnCycles(edges)
        let indirect = Set(enums.keys.filter(cyclic.contains))
        if !indirect.isEmpty { models = models.map { $0.makingIndirect(indirect) } }
        for name in enums.keys where !indirect.contains(name) { fields[name] = enums[name] }
        let remaining = Self.typesOnCycles(fields)
        let componentsByType = Dictionary(schemas.componentNames.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        for start in models.map(\.name) where remaining.contains(start) {
            // A property of `start` whose type leads back to `start`.
            while let property = (fields[start] ?? []).first(where: { leadsBack(from: $0, to: start, fields: fields) }) {
                fields[start]?.removeAll { $0 == property }
                models = models.map { $0.readingAsJSON(propertiesOfType: property, in: start) }
                let component = componentsByType[start] ?? start
                warnings.append(source.warning(.degradedToJSON, at: JSONPointer(["components", "schemas", component]),
                                               "schema \(component) contains itself through a property of type \(property) that is not an array: that property is read as JSON"))
            }
        }
        return models
    }

    private func leadsBack(from type: String, to start: String, fields: [String: [String]]) -> Bool {
        var stack = [type]
        var seen: Set<String> = []
        while let next = stack.popLast() {
            if next == start { return true }
            if seen.insert(next).inserted { stack += fields[next] ?? [] }
        }
        return false
    }

    /// The types that reach themselves through `edges`: the members of strongly connected
    /// components of more than one type, and types with an edge to themselves (Tarjan's
    /// algorithm, without recursion).
    static func typesOnCycles(_ edges: [String: [String]]) -> Set<String> {
        var index: [String: Int] = [:]
        var lowLink: [String: Int] = [:]
        var stack: [String] = []
        var onStack: Set<String> = []
        var result: Set<String> = []
        var counter = 0
        for root in edges.keys.sorted() where index[root] == nil {
            // Each frame: a type and the position of the next edge to follow.
            var frames: [(node: String, next: Int)] = [(root, 0)]
            index[root] = counter
            lowLink[root] = counter
            counter += 1
            stack.append(root)
            onStack.insert(root)
            while let frame = frames.last {
                let targets = edges[frame.node] ?? []
                if frame.next < targets.count {
                    frames[frames.count - 1].next += 1
                    let target = targets[frame.next]
                    guard edges[target] != nil else { continue }
                    if index[target] == nil {
                        index[target] = counter
                        lowLink[target] = counter
                        counter += 1
                        stack.append(target)
                        onStack.insert(target)
                        frames.append((target, 0))
                    } else if onStack.contains(target) {
                        lowLink[frame.node] = min(lowLink[frame.node] ?? 0, index[target] ?? 0)
                    }
                    continue
                }
                frames.removeLast()
                if let parent = frames.last {
                    lowLink[parent.node] = min(lowLink[parent.node] ?? 0, lowLink[frame.node] ?? 0)
                }
                guard lowLink[frame.node] == index[frame.node] else { continue }
                var component: [String] = []
                while let member = stack.popLast() {
                    onStack.remove(member)
                    component.append(member)
                    if member == frame.node { break }
                }
                if component.count > 1 || targets.contains(frame.node) { result.formUnion(component) }
            }
        }
        return result
    }

    /// `Node?` → `Node`.
    private static func bare(_ type: String) -> String {
        type.hasSuffix("?") ? String(type.dropLast()) : type
    }
}
#endif
