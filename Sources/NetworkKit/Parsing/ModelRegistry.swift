import Foundation

/// Where model converters are registered at startup: by model type, by model name, or both.
///
/// ```swift
/// ModelRegistry.shared.register(User.self) { json in try User(json: json) }  // ModelParser(User.self)
/// ModelRegistry.shared.register(name: "TestModel") { json in try TestModel(json) }
/// ```
/// `ModelParser(User.self)` takes a `Decodable` model: the converter registered for its type
/// when there is one, else `defaultConverter` (Codable). A model that is not `Decodable` is
/// converted by name: `ModelParser(TestModel.self, modelName: "TestModel")`.
public final class ModelRegistry: Sendable {
    /// The registry `ModelParser` uses unless given another.
    public static let shared = ModelRegistry()

    private struct Entries {
        var byType: [ObjectIdentifier: any Sendable] = [:]
        var byName: [String: @Sendable (JSON) throws -> any Sendable] = [:]
        var fallback: any ModelConverter = CodableConverter()
    }

    private let entries = Protected(Entries())

    /// Creates an empty registry whose default converter is `CodableConverter`.
    public init() {}

    /// Registers the converter for `type`, and for `name` too when given.
    public func register<Model: Sendable>(
        _ type: Model.Type, name: String? = nil,
        converter: @escaping @Sendable (JSON) throws -> Model
    ) {
        entries.withLock {
            $0.byType[ObjectIdentifier(type)] = converter
            if let name { $0.byName[name] = { try converter($0) } }
        }
    }

    /// Registers a converter for a model name; requests name it in `ModelParser(modelName:)`.
    public func register(name: String, converter: @escaping @Sendable (JSON) throws -> any Sendable) {
        entries.withLock { $0.byName[name] = converter }
    }

    /// The converter for types with none of their own (`CodableConverter` unless replaced).
    public var defaultConverter: any ModelConverter {
        get { entries.withLock { $0.fallback } }
        set { entries.withLock { $0.fallback = newValue } }
    }

    /// Converts `json` to `type`: the named converter if `name` is given, else the type's, else the default.
    public func convert<Model>(_ json: JSON, to type: Model.Type, name: String? = nil) throws -> Model {
        try convert(json, to: type, name: name, decoder: nil)
    }

    /// Converts `json` to `type` as a model parser does: the named converter if `name` is given,
    /// else the type's, else `decoder` when there is one, else the default.
    package func convert<Model>(_ json: JSON, to type: Model.Type, name: String?, decoder: JSONDecoder?) throws -> Model {
        if let name {
            guard let converter = entries.withLock({ $0.byName[name] }) else {
                throw ParseError(parser: "model", reason: "no converter registered for model name \"\(name)\"")
            }
            let value = try converter(json)
            guard let model = value as? Model else {
                throw ParseError(parser: "model", reason: "converter \"\(name)\" returned \(Swift.type(of: value)), not \(type)")
            }
            return model
        }
        if let converter = typedConverter(for: type) { return try converter(json) }
        if let decoder { return try CodableConverter(decoder: decoder).convert(json, to: type, name: nil) }
        return try defaultConverter.convert(json, to: type, name: nil)
    }

    /// True when `type` has a converter of its own (not the default one).
    package func hasConverter<Model>(for type: Model.Type) -> Bool {
        typedConverter(for: type) != nil
    }

    private func typedConverter<Model>(for type: Model.Type) -> (@Sendable (JSON) throws -> Model)? {
        entries.withLock { $0.byType[ObjectIdentifier(type)] } as? @Sendable (JSON) throws -> Model
    }
}
