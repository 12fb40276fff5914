import Foundation

/// Turns JSON into a model of a requested type. The registry's default converter decodes
/// `Decodable` types; register your own to use another JSON-to-model library.
public protocol ModelConverter: Sendable {
    /// Converts `json` to `type`, or throws. `name` is the model name the request asked for, if any.
    func convert<Model>(_ json: JSON, to type: Model.Type, name: String?) throws -> Model
}

/// The default converter: a `JSONDecoder` for `Decodable` models.
public struct CodableConverter: ModelConverter {
    /// The decoder, with its strategies (dates, keys, data). The kit only reads it: one decoder
    /// may serve any number of converters, parsers and services at once, as long as the app does
    /// not change it while they decode.
    public let decoder: JSONDecoder

    /// Creates the converter with `decoder`, configured as the app's models need.
    public init(decoder: JSONDecoder = JSONDecoder()) {
        self.decoder = decoder
    }

    /// Decodes `json` when `Model` is `Decodable`: the configured `JSONDecoder` reads the value's
    /// text (`JSON.serialized()`), so `JSON`'s numbers (`Int64` or `Double`) are what it sees; a
    /// clear `ParseError` otherwise.
    public func convert<Model>(_ json: JSON, to type: Model.Type, name: String?) throws -> Model {
        try decoding(type) { decodable in try decoder.decode(decodable, from: json.serialized()) }
    }

    /// Decodes JSON text straight into `Model`, skipping the `JSON` step. Text that
    /// `FoundationJSONInput` refuses throws as malformed without reaching `JSONDecoder`.
    package func decode<Model>(_ data: Data, to type: Model.Type) throws -> Model {
        guard FoundationJSONInput.isSafe(data) else { throw FoundationJSONInput.endsInsideContainer }
        return try decoding(type) { decodable in try decoder.decode(decodable, from: data) }
    }

    /// The model at `parser`'s content key path in JSON text, its business code checked, in one
    /// pass of the configured `JSONDecoder` (see `KeyPathModel`). Nil when anything but the
    /// model stands in the way: a wrong code, a key path that leads nowhere, text that is not
    /// JSON (`FoundationJSONInput` refusing it included), a type that is not `Decodable`, or a
    /// key strategy, which would apply to the path's keys too. The model's own failures throw as
    /// `convert` throws them, their coding paths starting at the content.
    func decode<Model>(_ data: Data, to type: Model.Type, through parser: JSONParser) throws -> (model: Model, status: BusinessStatus?)? {
        guard let decodable = type as? any Decodable.Type, FoundationJSONInput.isSafe(data) else { return nil }
        guard case .useDefaultKeys = decoder.keyDecodingStrategy else { return nil }
        let route = KeyPathRoute(businessCode: parser.businessCode, contentKeyPath: parser.contentKeyPath ?? JSONKeyPath(""))
        var status: BusinessStatus?
        do {
            let model = try decoding(type) { _ in
                do {
                    let decoded = try KeyPathRoute.$current.withValue(route) {
                        try Self.decodeModel(decodable, from: data, with: decoder)
                    }
                    status = decoded.status
                    return decoded.model
                } catch let failure as KeyPathModelFailure {
                    throw failure.error // the model's: a ParseError of kind .model, as `convert` throws
                } catch is DecodingError {
                    throw KeyPathMiss() // the decoder's own: the text is not JSON
                }
            }
            return (model, status)
        } catch is KeyPathMiss {
            return nil
        }
    }

    private static func decodeModel<Model: Decodable>(_ type: Model.Type, from data: Data,
                                                      with decoder: JSONDecoder) throws -> (model: Model, status: BusinessStatus?) {
        let decoded = try decoder.decode(KeyPathModel<Model>.self, from: data)
        return (decoded.model, decoded.status)
    }

    /// Runs `decode` for `type` when it is `Decodable`, turning its failures into `ParseError`s
    /// of kind `.model` that keep the `DecodingError`.
    private func decoding<Model>(_ type: Model.Type, _ decode: (any Decodable.Type) throws -> any Decodable) throws -> Model {
        guard let decodable = type as? any Decodable.Type else {
            throw ParseError(parser: "model", reason: "\(type) is not Decodable and no converter is registered for it",
                             kind: .model)
        }
        do {
            guard let model = try decode(decodable) as? Model else {
                throw ParseError(parser: "model", reason: "decoded value is not a \(type)", kind: .model)
            }
            return model
        } catch let error as DecodingError {
            throw ParseError(parser: "model", reason: "cannot decode \(type): \(Self.describe(error))", kind: .model,
                             underlying: error)
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "top level" : keys.joined(separator: "/")
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(path(context))"
        case .valueNotFound(let type, let context):
            return "null where \(type) was expected at \(path(context))"
        case .keyNotFound(let key, let context):
            return "missing key \"\(key.stringValue)\" at \(path(context))"
        case .dataCorrupted(let context):
            return "\(context.debugDescription) at \(path(context))"
        @unknown default:
            return "\(error)"
        }
    }
}
