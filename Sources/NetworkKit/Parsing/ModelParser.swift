import Foundation

/// Parses JSON with a `JSONParser` (code check, content key path), then converts the content to
/// a model: a `Decodable` model by a `JSONDecoder` (or the converter registered for its type), any
/// other by the converter registered under its name.
///
/// ```swift
/// ModelParser([Entrance].self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"),
///                                                contentKeyPath: "content/entrance"))
/// ```
///
/// A `Decodable` model is converted by the first of these that applies:
/// 1. the converter registered for its type in ``registry``;
/// 2. this parser's ``decoder``;
/// 3. the service's ``ServiceConfiguration/jsonDecoder`` (each response carries it, as
///    ``Response/jsonDecoder``);
/// 4. the registry's ``ModelRegistry/defaultConverter`` (a plain `JSONDecoder` unless replaced).
///
/// So an app with two backends gives each service its decoder (ISO 8601 dates for one, seconds
/// since 1970 for the other), and a request whose answer differs gives its parser one.
public struct ModelParser<Model: Sendable>: ResponseParser {
    /// The JSON step: code check and the key path of the model's content.
    public var json: JSONParser
    /// A model name registered with `ModelRegistry.register(name:)`; nil looks up by type.
    public var modelName: String?
    /// Where converters are looked up.
    public var registry: ModelRegistry
    /// The decoder of this parser's `Decodable` model, before the service's; nil uses the
    /// service's, else the registry's default converter.
    public var decoder: JSONDecoder?

    /// A parser producing `type`: by the converter registered for the type, when there is one,
    /// else by `decoder`, the service's decoder or the registry's default converter, in that
    /// order.
    public init(_ type: Model.Type, json: JSONParser = JSONParser(), decoder: JSONDecoder? = nil,
                registry: ModelRegistry = .shared)
    where Model: Decodable {
        self.json = json
        self.decoder = decoder
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
        let decoder = self.decoder ?? response.jsonDecoder
        if modelName == nil, json.shape == nil, !registry.hasConverter(for: Model.self),
           let codable = decoder.map({ CodableConverter(decoder: $0) }) ?? registry.defaultConverter as? CodableConverter {
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
        return try registry.convert(content, to: Model.self, name: modelName, decoder: decoder)
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
