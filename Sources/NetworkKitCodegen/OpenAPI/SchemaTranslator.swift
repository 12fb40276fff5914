#if CodeGeneration
import Foundation
import OpenAPIKit

/// Turns JSON schemas into Swift types: component schemas into named declarations, inline
/// schemas into nested ones, and every schema into the Swift type expression that holds it.
struct SchemaTranslator {
    let document: OpenAPI.Document
    let source: SourceFile
    /// Swift type names of the component schemas, by component name.
    private(set) var componentNames: [String: String] = [:]
    /// The same names as a set, which every scope of nested types reserves.
    private(set) var componentTypeNames: Set<String> = []
    /// Set when a `date-time` string appears anywhere, so the decoder gets an ISO 8601 strategy.
    private(set) var usesDates = false
    /// Schemas read as `JSON` because they have no Swift type, and discriminators left unused.
    private(set) var warnings: [GeneratorWarning] = []

    /// A translator for `document`, with names for its component schemas.
    init(document: OpenAPI.Document, source: SourceFile) {
        self.document = document
        self.source = source
        var unique = UniqueNames()
        for key in document.components.schemas.keys {
            componentNames[key.rawValue] = unique.claim(SwiftNames.type(key.rawValue))
        }
        componentTypeNames = Set(componentNames.values)
    }

    /// Where a schema is, and the scope its inline types go into.
    struct Site {
        var pointer: JSONPointer
        /// The name an inline type made here would take.
        var suggestedName: String
    }

    /// What a schema becomes: a Swift type expression, and whether `null` is allowed.
    struct Translation {
        var type: String
        var isNullable: Bool
    }

    /// The declarations of every component schema, in the document's order.
    mutating func componentDeclarations() throws -> [ModelDeclaration] {
        var declarations: [ModelDeclaration] = []
        var topNames = UniqueNames(reserved: componentTypeNames)
        for (key, schema) in document.components.schemas {
            let name = componentNames[key.rawValue] ?? SwiftNames.type(key.rawValue)
            let pointer = JSONPointer(["components", "schemas", key.rawValue])
            let doc = documentation(of: schema) ?? "The schema at `\(pointer)`."
            do {
                if let declaration = try declaration(for: schema, named: name, at: pointer) {
                    declarations.append(declaration)
                    continue
                }
            } catch let error as GeneratorError where error.isUnsupportedConstruct {
                degrade(error)
                declarations.append(.alias(name: name, doc: doc, type: "JSON?"))
                continue
            }
            let translation = try translateOrJSON(schema, at: Site(pointer: pointer, suggestedName: name + "Value"),
                                                  nested: &declarations, scope: &topNames)
            let type = translation.type + (translation.isNullable ? "?" : "")
            declarations.append(.alias(name: name, doc: doc, type: type))
        }
        return declarations
    }

    /// A named declaration for schemas that need one (objects with properties, enums, `oneOf`,
    /// `allOf`); nil for the rest, which are plain type expressions.
    mutating func declaration(for schema: JSONSchema, named name: String, at pointer: JSONPointer) throws -> ModelDeclaration? {
        let doc = documentation(of: schema) ?? "The schema at `\(pointer)`."
        switch schema.value {
        case .object(_, let object) where !object.properties.isEmpty:
            return .structure(try structure(named: name, doc: doc, properties: object.properties.map { ($0.key, $0.value) },
                                            at: pointer.appending("properties")))
        case .string(let core, _) where core.allowedValues != nil:
            return .rawEnum(try rawEnum(named: name, doc: doc, values: core.allowedValues ?? [], rawType: "String", at: pointer))
        case .integer(let core, _) where core.allowedValues != nil:
            return .rawEnum(try rawEnum(named: name, doc: doc, values: core.allowedValues ?? [], rawType: "Int", at: pointer))
        case .one(let members, _), .any(let members, _):
            let key = schema.value.isOneOf ? "oneOf" : "anyOf"
            let options = members.enumerated().filter { !$0.element.isNullOnly }
            guard options.count > 1 else { return nil }
            return .oneOf(try oneOf(named: name, doc: doc, members: options.map { ($0.offset, $0.element) },
                                    discriminator: schema.discriminator, at: pointer.appending(key)))
        case .all(let members, _):
            let parts = members.enumerated().filter { !$0.element.isNullOnly }
            guard parts.count > 1 else { return nil }
            var properties: [(String, JSONSchema)] = []
            for (index, member) in parts {
                for property in try objectProperties(of: member, at: pointer.appending("allOf").appending(index)) {
                    if let existing = properties.firstIndex(where: { $0.0 == property.0 }) {
                        // A property named twice is required when any part requires it.
                        if property.1.required, !properties[existing].1.required { properties[existing] = property }
                    } else {
                        properties.append(property)
                    }
                }
            }
            return .structure(try structure(named: name, doc: doc, properties: properties, at: pointer.appending("allOf")))
        default:
            return nil
        }
    }

    /// The Swift type of `schema`, or `JSON` (with a warning) when it has none: a construct
    /// without a Swift type degrades the value that holds it, not the document.
    mutating func translateOrJSON(_ schema: JSONSchema, at site: Site, nested: inout [ModelDeclaration],
                                  scope: inout UniqueNames) throws -> Translation {
        let count = nested.count
        do {
            return try translate(schema, at: site, nested: &nested, scope: &scope)
        } catch let error as GeneratorError where error.isUnsupportedConstruct {
            nested.removeSubrange(count...)
            degrade(error)
            return Translation(type: "JSON", isNullable: true)
        }
    }

    private mutating func degrade(_ error: GeneratorError) {
        warnings.append(GeneratorWarning(kind: .degradedToJSON, file: error.file, line: error.line, pointer: error.pointer ?? "#",
                                         message: error.message + ": read as JSON"))
    }

    /// The Swift type of `schema`; inline types it needs are appended to `nested`, named
    /// uniquely in `scope`.
    mutating func translate(_ schema: JSONSchema, at site: Site, nested: inout [ModelDeclaration],
                            scope: inout UniqueNames) throws -> Translation {
        let nullable = schema.nullable
        switch schema.value {
        case .reference(let reference, _):
            return Translation(type: try referencedType(reference, at: site.pointer), isNullable: nullable)
        case .boolean:
            return Translation(type: "Bool", isNullable: nullable)
        case .integer(let core, _):
            if core.allowedValues != nil { break }
            switch core.format.rawValue {
            case "int32": return Translation(type: "Int32", isNullable: nullable)
            case "int64": return Translation(type: "Int64", isNullable: nullable)
            default: return Translation(type: "Int", isNullable: nullable)
            }
        case .number(let core, _):
            return Translation(type: core.format.rawValue == "float" ? "Float" : "Double", isNullable: nullable)
        case .string(let core, _):
            if core.allowedValues != nil { break }
            switch core.format.rawValue {
            case "date-time":
                usesDates = true
                return Translation(type: "Date", isNullable: nullable)
            case "uuid": return Translation(type: "UUID", isNullable: nullable)
            case "byte": return Translation(type: "Data", isNullable: nullable)
            default: return Translation(type: "String", isNullable: nullable)
            }
        case .array(_, let array):
            guard let items = array.items else { return Translation(type: "[JSON]", isNullable: nullable) }
            let element = try translate(items, at: Site(pointer: site.pointer.appending("items"),
                                                        suggestedName: SwiftNames.singular(site.suggestedName)),
                                        nested: &nested, scope: &scope)
            return Translation(type: "[\(element.type)\(element.isNullable ? "?" : "")]", isNullable: nullable)
        case .object(_, let object):
            if !object.properties.isEmpty { break }
            switch object.additionalProperties {
            case .b(let values)?:
                let value = try translate(values, at: Site(pointer: site.pointer.appending("additionalProperties"),
                                                           suggestedName: site.suggestedName + "Value"),
                                          nested: &nested, scope: &scope)
                return Translation(type: "[String: \(value.type)\(value.isNullable ? "?" : "")]", isNullable: nullable)
            default:
                return Translation(type: "[String: JSON]", isNullable: nullable)
            }
        case .one(let members, _), .any(let members, _):
            let options = members.enumerated().filter { !$0.element.isNullOnly }
            if options.count == 1, let only = options.first {
                let key = schema.value.isOneOf ? "oneOf" : "anyOf"
                let inner = try translate(only.element, at: Site(pointer: site.pointer.appending(key).appending(only.offset),
                                                                 suggestedName: site.suggestedName),
                                          nested: &nested, scope: &scope)
                return Translation(type: inner.type, isNullable: nullable || inner.isNullable || options.count < members.count)
            }
            if options.isEmpty { return Translation(type: "JSON", isNullable: true) }
        case .all(let members, _):
            let parts = members.enumerated().filter { !$0.element.isNullOnly }
            if parts.count == 1, let only = parts.first {
                let inner = try translate(only.element, at: Site(pointer: site.pointer.appending("allOf").appending(only.offset),
                                                                 suggestedName: site.suggestedName),
                                          nested: &nested, scope: &scope)
                return Translation(type: inner.type, isNullable: nullable || inner.isNullable)
            }
        case .not:
            throw source.error(at: site.pointer.appending("not"), "unsupported construct: `not` schemas have no Swift type")
        case .null:
            return Translation(type: "JSON", isNullable: true)
        case .fragment:
            return Translation(type: "JSON", isNullable: nullable)
        }
        // A type of its own, declared next to where it is used.
        let name = scope.claim(site.suggestedName)
        guard let declaration = try declaration(for: schema, named: name, at: site.pointer) else {
            throw source.error(at: site.pointer, "unsupported construct: cannot make a Swift type of this schema")
        }
        nested.append(declaration)
        return Translation(type: name, isNullable: nullable)
    }

    /// The Swift type name of a component schema reference; an error for anything else.
    func referencedType(_ reference: JSONReference<JSONSchema>, at pointer: JSONPointer) throws -> String {
        guard case .internal(let internalReference) = reference else {
            throw source.error(at: pointer, "unsupported construct: external $ref \(reference.absoluteString) (only references into this document are read)")
        }
        guard let name = internalReference.name, internalReference.rawValue.hasPrefix("#/components/schemas/"),
              let type = componentNames[name] else {
            throw source.error(at: pointer, "unresolved $ref \(reference.absoluteString): no such schema in components/schemas")
        }
        return type
    }

    /// The schema a reference points to (following chains of references), with its pointer.
    func resolved(_ schema: JSONSchema, at pointer: JSONPointer) throws -> (schema: JSONSchema, pointer: JSONPointer) {
        var current = (schema: schema, pointer: pointer)
        var seen: Set<String> = []
        while case .reference(let reference, _) = current.schema.value {
            _ = try referencedType(reference, at: current.pointer)
            guard let name = reference.name, seen.insert(name).inserted,
                  let target = document.components.schemas[OpenAPI.ComponentKey(rawValue: name) ?? "_"] else {
                throw source.error(at: current.pointer, "unresolved $ref \(reference.absoluteString): it refers to itself")
            }
            current = (target, JSONPointer(["components", "schemas", name]))
        }
        return current
    }

    /// The properties of an object schema (following references and `allOf`), each with its
    /// requiredness as the schema states it.
    func objectProperties(of schema: JSONSchema, at pointer: JSONPointer) throws -> [(String, JSONSchema)] {
        let (target, targetPointer) = try resolved(schema, at: pointer)
        switch target.value {
        case .object(_, let object):
            return object.properties.map { ($0.key, $0.value) }
        case .all(let members, _):
            return try members.enumerated().flatMap { index, member in
                try objectProperties(of: member, at: targetPointer.appending("allOf").appending(index))
            }
        default:
            throw source.error(at: targetPointer, "unsupported construct: allOf of a schema that is not an object")
        }
    }

    private mutating func structure(named name: String, doc: String?, properties: [(String, JSONSchema)],
                                    at pointer: JSONPointer) throws -> ModelDeclaration.Structure {
        var structure = ModelDeclaration.Structure(name: name, doc: doc, properties: [])
        var propertyNames = UniqueNames()
        var typeNames = UniqueNames(reserved: componentTypeNames, also: [name])
        for (key, schema) in properties {
            let site = Site(pointer: pointer.appending(key), suggestedName: SwiftNames.type(key))
            let translation = try translateOrJSON(schema, at: site, nested: &structure.nested, scope: &typeNames)
            structure.properties.append(ModelDeclaration.Property(
                name: propertyNames.claim(SwiftNames.property(key)), key: key, type: translation.type,
                isOptional: translation.isNullable || !schema.required, doc: documentation(of: schema)))
        }
        return structure
    }

    private func rawEnum(named name: String, doc: String?, values: [AnyCodable], rawType: String,
                         at pointer: JSONPointer) throws -> ModelDeclaration.RawEnum {
        var names = UniqueNames()
        var cases: [(name: String, literal: String)] = []
        for value in values {
            if rawType == "Int" {
                guard let number = (value.value as? Int) ?? (value.value as? Double).flatMap({ Int(exactly: $0) }) else {
                    throw source.error(at: pointer.appending("enum"), "unsupported construct: integer enum value \(value)")
                }
                cases.append((names.claim(number < 0 ? "minus\(-number)" : "value\(number)"), String(number)))
            } else if let text = value.value as? String {
                cases.append((names.claim(text.isEmpty ? "empty" : SwiftNames.property(text)), SwiftNames.literal(text)))
            } else if value.value is Void || value.value is NSNull {
                continue  // `null` in an enum only says the value may be null
            } else {
                throw source.error(at: pointer.appending("enum"), "unsupported construct: enum value \(value) in a string enum")
            }
        }
        return ModelDeclaration.RawEnum(name: name, doc: doc, rawType: rawType, cases: cases)
    }

    private mutating func oneOf(named name: String, doc: String?, members: [(Int, JSONSchema)],
                                discriminator: OpenAPI.Discriminator?, at pointer: JSONPointer) throws -> ModelDeclaration.OneOf {
        var discriminator = discriminator
        if discriminator != nil, let (index, _) = members.first(where: { member in
            if case .reference = member.1.value { return false } else { return true }
        }) {
            warnings.append(source.warning(.note, at: pointer.appending(index),
                                           "a oneOf with a discriminator lists a schema that is not a $ref: the discriminator is not used, each type is tried in order"))
            discriminator = nil
        }
        var result = ModelDeclaration.OneOf(name: name, doc: doc, cases: [], discriminator: discriminator?.propertyName)
        var caseNames = UniqueNames()
        var typeNames = UniqueNames(reserved: componentTypeNames, also: [name])
        for (index, member) in members {
            let site = Site(pointer: pointer.appending(index), suggestedName: "Option\(index + 1)")
            let translation = try translateOrJSON(member, at: site, nested: &result.nested, scope: &typeNames)
            let type = translation.type + (translation.isNullable ? "?" : "")
            var tags: [String] = []
            if let discriminator {
                guard case .reference(let reference, _) = member.value, let component = reference.name else {
                    throw source.error(at: site.pointer, "unsupported construct: a oneOf with a discriminator must list $refs")
                }
                var mapped: [String] = []
                for (tag, target) in discriminator.mapping ?? [:]
                where target == reference.absoluteString || target == component {
                    mapped.append(tag)
                }
                tags = mapped.isEmpty ? [component] : mapped.sorted()
            }
            let caseName = SwiftNames.property(SwiftNames.bare(translation.type.filter { $0.isLetter || $0.isNumber }))
            result.cases.append(.init(name: caseNames.claim(caseName), type: type, tags: tags))
        }
        return result
    }

    /// A schema's title and description, as documentation.
    func documentation(of schema: JSONSchema) -> String? {
        let parts = [schema.title, schema.description].compactMap { $0?.trimmed }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: "\n\n")
    }
}

extension JSONSchema {
    /// True for `{}` (or a schema of only a description): any JSON value.
    var isEmptyFragment: Bool {
        if case .fragment = value { return true }
        return false
    }

    /// True for `{type: null}`, which in a `oneOf`/`anyOf` only makes the others nullable.
    var isNullOnly: Bool {
        if case .null = value { return true }
        return false
    }
}

extension JSONSchema.Schema {
    var isOneOf: Bool {
        if case .one = self { return true }
        return false
    }
}
#endif
