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
    /// What a run produced: the Swift source and warnings in compiler format.
    public struct Output: Sendable {
        /// The generated Swift file.
        public var source: String
        /// `file:line: warning: message` lines for constructs that were skipped.
        public var warnings: [String]
    }

    /// Generates from the document in `text`. `fileName` names it in errors and in the generated
    /// header (use the path a person should open).
    public static func generate(document text: String, fileName: String, config: GeneratorConfig = GeneratorConfig()) throws -> Output {
        let document = try DocumentLoader.load(text, file: fileName)
        let source = SourceFile(path: fileName, locator: SourceLocator(text: text))
        let namespace = config.name.map(SwiftNames.type) ?? SwiftNames.type(document.info.title)
        var schemas = SchemaTranslator(document: document, source: source)
        var models = try schemas.componentDeclarations()
        var operations = OperationTranslator(schemas: schemas, config: config, source: source, namespace: namespace)
        let declarations = try operations.operations()
        models += operations.inlineTypes
        schemas = operations.schemas
        try RecursionCheck(models: models, source: source, document: document, schemas: schemas).run()
        let access = config.access == "internal" ? "" : "public "
        let emitter = APIEmitter(namespace: namespace, access: access,
                                 sourceName: URL(fileURLWithPath: fileName).lastPathComponent,
                                 title: document.info.title, summary: document.info.description?.trimmed,
                                 version: document.info.version, operations: declarations, models: models,
                                 usesDates: schemas.usesDates, usesPathSegments: operations.usesPathSegments)
        return Output(source: emitter.emit(), warnings: operations.warnings)
    }

    /// Generates from the document at `input`, with the configuration at `config` if given.
    public static func generate(input: URL, config: URL?) throws -> Output {
        let configuration = try config.map(GeneratorConfig.load(from:)) ?? GeneratorConfig()
        let text: String
        do {
            text = try String(contentsOf: input, encoding: .utf8)
        } catch {
            throw GeneratorError(file: input.path, message: "cannot read the document: \(error.localizedDescription)")
        }
        return try generate(document: text, fileName: input.path, config: configuration)
    }
}

/// Structs that contain themselves through properties that are not arrays or dictionaries have
/// no finite size in Swift: such a document is an error, not Swift that does not compile.
struct RecursionCheck {
    let models: [ModelDeclaration]
    let source: SourceFile
    let document: OpenAPI.Document
    let schemas: SchemaTranslator

    func run() throws {
        var fields: [String: [String]] = [:]
        func collect(_ declaration: ModelDeclaration, prefix: String) {
            switch declaration {
            case .structure(let structure):
                fields[structure.name] = structure.properties.map(\.type).filter { !$0.hasPrefix("[") }
                structure.nested.forEach { collect($0, prefix: structure.name) }
            case .oneOf(let oneOf):
                fields[oneOf.name] = oneOf.cases.map { $0.type.hasSuffix("?") ? String($0.type.dropLast()) : $0.type }
                    .filter { !$0.hasPrefix("[") }
                oneOf.nested.forEach { collect($0, prefix: oneOf.name) }
            case .alias(let name, _, let type):
                fields[name] = type.hasPrefix("[") ? [] : [type]
            case .rawEnum:
                break
            }
        }
        models.forEach { collect($0, prefix: "") }
        for start in models.map(\.name) {
            var stack = fields[start] ?? []
            var seen: Set<String> = []
            while let next = stack.popLast() {
                if next == start {
                    let component = schemas.componentNames.first { $0.value == start }?.key ?? start
                    throw source.error(at: JSONPointer(["components", "schemas", component]),
                                       "unsupported construct: schema \(component) contains itself through a property that is not an array")
                }
                if seen.insert(next).inserted { stack += fields[next] ?? [] }
            }
        }
    }
}
#endif
