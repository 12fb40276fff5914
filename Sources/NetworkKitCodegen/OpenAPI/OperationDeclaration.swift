#if CodeGeneration
import Foundation
/// One operation as the emitter writes it: a function returning a configured `Request`.
struct OperationDeclaration {
    var name: String
    var doc: [String]
    var method: String
    /// The path as a Swift string literal body, placeholders already interpolated.
    var pathExpression: String
    var rawPath: String
    var parameters: [Parameter]
    var body: Body?
    var response: Response
    var cacheSeconds: Int?
    /// True for the `…Stream` function of an operation whose answer is also offered as JSON.
    var isStreamVariant = false

    /// A function parameter and where its value goes.
    struct Parameter {
        var name: String
        var type: String
        var isRequired: Bool
        var doc: String
        var placement: Placement
        /// An argument label other than the name (`to` for a download's destination).
        var label: String?
    }

    /// Where a parameter's value goes.
    enum Placement {
        /// In the path: interpolated by `pathExpression`.
        case path
        /// In `parameters` (the query, or the form body): `key` and the expression of a value.
        case parameter(key: String, convert: ValueConversion)
        /// In `headers`.
        case header(key: String, convert: ValueConversion)
        /// A JSON body.
        case jsonBody
        /// Raw bytes with this content type.
        case dataBody(contentType: String)
        /// A text field of a multipart form.
        case multipartField(key: String, convert: ValueConversion)
        /// A file part of a multipart form.
        case multipartFile(key: String, contentType: String?)
        /// Where a download goes.
        case destination
    }

    /// The kind of body, beyond its parameters.
    enum Body {
        case json, form, multipart, data
    }

    /// What the request's value is.
    enum Response {
        /// A model decoded from JSON through `ModelParser`.
        case model(type: String, envelope: GeneratorConfig.Envelope?)
        /// The body as text.
        case string
        /// The raw body.
        case data
        /// A file on disk.
        case download
        /// A stream of items as the body arrives; `item` is the Swift type of one, when the
        /// document gives its schema (events without one are `ServerSentEvent`s, lines `JSON`).
        case stream(StreamFormat, item: String?)
    }

    /// True for `application/json` (with parameters or not) and `…+json`, not for the streaming
    /// formats whose names start alike (`application/jsonl`, `application/json-seq`).
    static func isJSON(_ mediaType: String) -> Bool {
        let bare = bareMediaType(mediaType)
        return bare == "application/json" || bare.hasSuffix("+json")
    }

    /// `mediaType` without its parameters, lowercased: `Application/JSON; charset=utf-8` → `application/json`.
    static func bareMediaType(_ mediaType: String) -> String {
        mediaType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    }

    /// The streaming formats an operation's response can have.
    enum StreamFormat: Equatable {
        /// `text/event-stream`.
        case events
        /// `application/jsonl`, `application/x-ndjson` (and `x-jsonlines`).
        case jsonLines
        /// `application/json-seq`.
        case jsonSequence

        /// The format of `mediaType`, or nil for a body that is not a stream.
        init?(mediaType: String) {
            switch OperationDeclaration.bareMediaType(mediaType) {
            case "text/event-stream": self = .events
            case "application/jsonl", "application/x-ndjson", "application/x-jsonlines", "application/jsonlines": self = .jsonLines
            case "application/json-seq": self = .jsonSequence
            default: return nil
            }
        }
    }

    /// The type of the request's value.
    var outputType: String {
        switch response {
        case .model(let type, _): return type
        case .string: return "String"
        case .data: return "Data"
        case .download: return "DownloadedFile"
        case .stream(let format, let item): return item ?? (format == .events ? "ServerSentEvent" : "JSON")
        }
    }

    /// True for a streaming request.
    var isStream: Bool {
        if case .stream = response { return true }
        return false
    }

    /// True when building the request can fail (a JSON body that cannot be encoded).
    var throwsError: Bool { body == .json }
}

/// How a typed value becomes a `JSON` parameter or a header's text.
indirect enum ValueConversion {
    case string, integer(String), number(String), bool, stringEnum, intEnum, date, uuid
    case array(ValueConversion)

    /// `JSON` of `value`.
    func json(_ value: String) -> String {
        switch self {
        case .string: return ".string(\(value))"
        case .integer(let type): return type == "Int64" ? ".int(\(value))" : ".int(Int64(\(value)))"
        case .number(let type): return type == "Double" ? ".double(\(value))" : ".double(Double(\(value)))"
        case .bool: return ".bool(\(value))"
        case .stringEnum: return ".string(\(value).rawValue)"
        case .intEnum: return ".int(Int64(\(value).rawValue))"
        case .date: return ".string(\(value).formatted(.iso8601))"
        case .uuid: return ".string(\(value).uuidString)"
        case .array(let element): return ".array(\(value).map { \(element.json("$0")) })"
        }
    }

    /// The text of `value`, for headers, path segments and form fields.
    func text(_ value: String) -> String {
        switch self {
        case .string: return value
        case .integer, .number, .bool: return "String(\(value))"
        case .stringEnum: return "\(value).rawValue"
        case .intEnum: return "String(\(value).rawValue)"
        case .date: return "\(value).formatted(.iso8601)"
        case .uuid: return "\(value).uuidString"
        case .array(let element): return "\(value).map { \(element.text("$0")) }.joined(separator: \",\")"
        }
    }
}
#endif
