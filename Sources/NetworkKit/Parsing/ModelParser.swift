import Foundation

/// Parses JSON with a `JSONParser` (code check, content key path), then converts the content to
/// a model: a `Decodable` model by `JSONDecoder` (or the converter registered for its type), any
/// other by the converter registered under its name.
///
/// ```swift
/// ModelParser([Entrance].self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"),
///                                                contentKeyPath: "content/entrance"))
/// ```
public struct ModelParser<Model: Sendable>: ResponseParser {
    /// The JSON step: code check and the key path of the model's content.
    public var json: JSONParser
    /// A model name registered with `ModelRegistry.register(name:)`; nil looks up by type.
    public var modelName: String?
    /// Where converters are looked up.
    public var registry: ModelRegistry

    /// A parser producing `type`: by the converter registered for the type, when there is one,
    /// else by the registry's default converter (`JSONDecoder` unless replaced).
    public init(_ type: Model.Type, json: JSONParser = JSONParser(), registry: ModelRegistry = .shared)
    where Model: Decodable {
        self.json = json
        self.registry = registry
    }

    /// A parser producing `type` by the converter registered under `modelName`, for a model that
    /// is not `Decodable`; a converter that returns another type fails the parse.
    public init(_ type: Model.Type, modelName: String, json: JSONParser = JSONParser(), registry: ModelRegistry = .shared) {
        self.json = json
        self.modelName = modelName
        self.registry = registry
    }

    /// Light: a small body parses in microseconds.
    public var isLightweight: Bool { true }

    /// The model. A `Decodable` model that goes to `CodableConverter` with no shape to check is
    /// decoded from the body by `JSONDecoder` in one pass, the business code and the content key
    /// path included; when anything but the model is wrong, the JSON step says what, so the
    /// errors are those of `JSONParser` (business code, key path, malformed text) and of the
    /// converter (the model, with its coding path from the content).
    public func parse(_ response: Response) throws -> Model {
        let json = self.json.applying(response.envelope)
        if modelName == nil, json.shape == nil, !registry.hasConverter(for: Model.self),
           let codable = registry.defaultConverter as? CodableConverter {
            try json.validateBody(of: response)
            if json.businessCode == nil, json.contentKeyPath == nil {
                // Nothing to check or extract: decode the body directly.
                return try codable.decode(response.data, to: Model.self)
            }
            if let decoded = try codable.decode(response.data, to: Model.self, through: json) {
                if let status = decoded.status { response.notes?.record(status) }
                return decoded.model
            }
        }
        let content = try json.parse(response)
        return try registry.convert(content, to: Model.self, name: modelName)
    }
}

extension ModelParser where Model == any Sendable {
    /// A parser producing whatever the converter registered under `modelName` returns.
    public init(modelName: String, json: JSONParser = JSONParser(), registry: ModelRegistry = .shared) {
        self.json = json
        self.modelName = modelName
        self.registry = registry
    }
}
