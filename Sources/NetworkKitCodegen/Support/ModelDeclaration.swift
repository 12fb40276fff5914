#if CodeGeneration
/// A Swift type the generators write: a struct, an enum of raw values, a `oneOf` enum, or an alias.
/// Both the OpenAPI generator and the sample-response inference build these.
indirect enum ModelDeclaration: Equatable {
    case structure(Structure)
    case rawEnum(RawEnum)
    case oneOf(OneOf)
    case alias(name: String, doc: String?, type: String)

    /// A struct with stored properties, its coding keys, and nested types.
    struct Structure: Equatable {
        var name: String
        var doc: String?
        var properties: [Property]
        var nested: [ModelDeclaration] = []
    }

    /// One stored property: its Swift name and type, the JSON key it reads, whether it may be absent.
    struct Property: Equatable {
        var name: String
        var key: String
        var type: String
        var isOptional: Bool
        var doc: String?
    }

    /// An enum of string or integer values.
    struct RawEnum: Equatable {
        var name: String
        var doc: String?
        var rawType: String
        /// Case names and the literals they stand for (already Swift literals: `"sold"`, `3`).
        var cases: [(name: String, literal: String)]

        static func == (lhs: RawEnum, rhs: RawEnum) -> Bool {
            lhs.name == rhs.name && lhs.doc == rhs.doc && lhs.rawType == rhs.rawType
                && lhs.cases.map(\.name) == rhs.cases.map(\.name) && lhs.cases.map(\.literal) == rhs.cases.map(\.literal)
        }
    }

    /// One of several types: decoded by a discriminator property when the schema names one, else
    /// by trying each type in order.
    struct OneOf: Equatable {
        var name: String
        var doc: String?
        var cases: [Case]
        var discriminator: String?
        var nested: [ModelDeclaration] = []
        /// True when the enum contains itself through its cases (its cases are then boxed).
        var isIndirect = false

        /// A case: its name, the type it holds, and the discriminator values that select it.
        struct Case: Equatable {
            var name: String
            var type: String
            var tags: [String]
        }
    }

    var name: String {
        switch self {
        case .structure(let value): return value.name
        case .rawEnum(let value): return value.name
        case .oneOf(let value): return value.name
        case .alias(let name, _, _): return name
        }
    }

    /// This declaration with the properties of type `type` (optional or not) of the struct
    /// named `owner` (here or nested) read as `JSON`; an alias named `owner` becomes `JSON`.
    func readingAsJSON(propertiesOfType type: String, in owner: String) -> ModelDeclaration {
        switch self {
        case .structure(var structure):
            if structure.name == owner {
                for index in structure.properties.indices
                where [type, type + "?"].contains(structure.properties[index].type) {
                    structure.properties[index].type = "JSON"
                    structure.properties[index].isOptional = true
                }
            }
            structure.nested = structure.nested.map { $0.readingAsJSON(propertiesOfType: type, in: owner) }
            return .structure(structure)
        case .oneOf(var oneOf):
            oneOf.nested = oneOf.nested.map { $0.readingAsJSON(propertiesOfType: type, in: owner) }
            return .oneOf(oneOf)
        case .alias(let name, let doc, _) where name == owner:
            return .alias(name: name, doc: doc, type: "JSON?")
        case .alias, .rawEnum:
            return self
        }
    }

    /// This declaration with the `oneOf` enums named in `names` (here or nested) made `indirect`.
    func makingIndirect(_ names: Set<String>) -> ModelDeclaration {
        switch self {
        case .structure(var structure):
            structure.nested = structure.nested.map { $0.makingIndirect(names) }
            return .structure(structure)
        case .oneOf(var oneOf):
            if names.contains(oneOf.name) { oneOf.isIndirect = true }
            oneOf.nested = oneOf.nested.map { $0.makingIndirect(names) }
            return .oneOf(oneOf)
        case .alias, .rawEnum:
            return self
        }
    }
}

/// Writes `ModelDeclaration`s as Swift.
struct ModelEmitter {
    /// `public ` or empty.
    var access: String
    /// Conformances of every generated type.
    var conformances = "Codable, Hashable, Sendable"

    func emit(_ declaration: ModelDeclaration, into writer: inout SwiftWriter) {
        switch declaration {
        case .structure(let structure): emit(structure, into: &writer)
        case .rawEnum(let rawEnum): emit(rawEnum, into: &writer)
        case .oneOf(let oneOf): emit(oneOf, into: &writer)
        case .alias(let name, let doc, let type):
            writer.doc(doc)
            writer.line("\(access)typealias \(name) = \(type)")
        }
    }

    private func emit(_ structure: ModelDeclaration.Structure, into writer: inout SwiftWriter) {
        writer.doc(structure.doc)
        writer.block("\(access)struct \(structure.name): \(conformances)") { writer in
            for property in structure.properties {
                writer.doc(property.doc)
                writer.line("\(access)var \(property.name): \(property.type)\(property.isOptional ? "?" : "")")
            }
            if !structure.properties.isEmpty { writer.line() }
            writer.line("/// Creates a value from its properties.")
            let parameters = structure.properties.map { property in
                property.isOptional ? "\(property.name): \(property.type)? = nil" : "\(property.name): \(property.type)"
            }
            writer.block("\(access)init(\(parameters.joined(separator: ", ")))") { writer in
                for property in structure.properties {
                    let bare = SwiftNames.bare(property.name)
                    writer.line("self.\(bare) = \(property.name)")
                }
            }
            if structure.properties.contains(where: { SwiftNames.bare($0.name) != $0.key }) {
                writer.line()
                writer.block("private enum CodingKeys: String, CodingKey") { writer in
                    for property in structure.properties {
                        let bare = SwiftNames.bare(property.name)
                        writer.line(bare == property.key ? "case \(property.name)"
                                                         : "case \(property.name) = \(SwiftNames.literal(property.key))")
                    }
                }
            }
            for nested in structure.nested {
                writer.line()
                emit(nested, into: &writer)
            }
        }
    }

    private func emit(_ rawEnum: ModelDeclaration.RawEnum, into writer: inout SwiftWriter) {
        writer.doc(rawEnum.doc)
        writer.block("\(access)enum \(rawEnum.name): \(rawEnum.rawType), \(conformances), CaseIterable") { writer in
            for item in rawEnum.cases {
                let bare = SwiftNames.bare(item.name)
                writer.line(item.literal == SwiftNames.literal(bare) ? "case \(item.name)" : "case \(item.name) = \(item.literal)")
            }
        }
    }

    private func emit(_ oneOf: ModelDeclaration.OneOf, into writer: inout SwiftWriter) {
        writer.doc(oneOf.doc)
        writer.block("\(access)\(oneOf.isIndirect ? "indirect " : "")enum \(oneOf.name): \(conformances)") { writer in
            for item in oneOf.cases {
                writer.line("/// The value as `\(item.type)`.")
                writer.line("case \(item.name)(\(item.type))")
            }
            writer.line()
            if let discriminator = oneOf.discriminator {
                writer.line("private enum DiscriminatorKeys: String, CodingKey {")
                writer.line("    case discriminator = \(SwiftNames.literal(discriminator))")
                writer.line("}")
                writer.line()
                writer.line("/// Decodes the case that the `\(discriminator)` property names.")
                writer.block("\(access)init(from decoder: any Decoder) throws") { writer in
                    writer.line("let container = try decoder.container(keyedBy: DiscriminatorKeys.self)")
                    writer.line("let tag = try container.decode(String.self, forKey: .discriminator)")
                    var cases = oneOf.cases.map { item in
                        (label: "case " + item.tags.map(SwiftNames.literal).joined(separator: ", "),
                         body: ["self = .\(SwiftNames.bare(item.name))(try \(item.type)(from: decoder))"])
                    }
                    cases.append((label: "default", body: [
                        "throw DecodingError.dataCorruptedError(",
                        "    forKey: .discriminator, in: container,",
                        "    debugDescription: \"unknown \(oneOf.name) \\\"\(discriminator)\\\" \\(tag)\")",
                    ]))
                    writer.switchBlock("tag", cases: cases)
                }
            } else {
                writer.line("/// Decodes the first case whose type accepts the value.")
                writer.block("\(access)init(from decoder: any Decoder) throws") { writer in
                    for item in oneOf.cases {
                        writer.block("if let value = try? \(item.type)(from: decoder)") { writer in
                            writer.line("self = .\(SwiftNames.bare(item.name))(value)")
                            writer.line("return")
                        }
                    }
                    writer.line("throw DecodingError.dataCorrupted(DecodingError.Context(")
                    let names = oneOf.cases.map(\.type).joined(separator: ", ")
                    writer.line("    codingPath: decoder.codingPath, debugDescription: \"matches none of \(names)\"))")
                }
            }
            writer.line()
            writer.line("/// Encodes the value of the case.")
            writer.block("\(access)func encode(to encoder: any Encoder) throws") { writer in
                writer.switchBlock("self", cases: oneOf.cases.map { item in
                    (label: "case .\(SwiftNames.bare(item.name))(let value)", body: ["try value.encode(to: encoder)"])
                })
            }
            for nested in oneOf.nested {
                writer.line()
                emit(nested, into: &writer)
            }
        }
    }
}
#endif
