#if CodeGeneration
import Foundation
import Yams

/// The optional configuration next to an OpenAPI document (`networkkit-openapi.yaml`, `.yml` or
/// `.json`): what the document cannot say about a NetworkKit service.
///
/// ```yaml
/// name: FixtureAPI             # the namespace of the generated code (default: from info.title)
/// access: public               # or internal (default public)
/// envelope:                    # the business-code envelope of every JSON answer
///   codeKeyPath: code          # BusinessCodeCheck's three settings, by the same names
///   okValues: [0]
///   messageKeyPaths: [message]
///   contentKeyPath: content
/// downloads: [downloadFile]    # operations saved to disk (`Request<DownloadedFile>`)
/// cache:                       # cache lifetime in seconds, per operation
///   getSmall: 60
/// operations:                  # per-operation envelope: none, or other key paths
///   echo: {envelope: false}
///   getFeed: {contentKeyPath: content/entrance}
/// ```
public struct GeneratorConfig: Equatable, Sendable {
    /// The Swift namespace (an enum) holding the endpoints and models.
    public var name: String?
    /// `public` or `internal`.
    public var access: String = "public"
    /// The envelope of every JSON answer, unless an operation says otherwise.
    public var envelope: Envelope?
    /// Operation ids whose answers are saved to disk.
    public var downloads: [String] = []
    /// Cache lifetime in seconds by operation id.
    public var cache: [String: Int] = [:]
    /// Per-operation envelope settings by operation id.
    public var operations: [String: OperationSettings] = [:]

    /// Where a service's answers keep the business code, message and content: the settings of a
    /// `BusinessCodeCheck` and a content key path, under the same names. A setting left out takes
    /// the service-wide envelope's, then `BusinessCodeCheck`'s default.
    public struct Envelope: Equatable, Sendable {
        /// Where the business code is (`code`); without it there is no business-code check.
        public var codeKeyPath: String?
        /// The codes that mean success: numbers or strings (`0` and `"0"` match alike).
        public var okValues: [OKValue]?
        /// Where a failure's message may be, tried in order.
        public var messageKeyPaths: [String]?
        /// Where the content is (`data`, `content/items`).
        public var contentKeyPath: String?

        /// The keys an envelope may have.
        static let keys = ["codeKeyPath", "okValues", "messageKeyPaths", "contentKeyPath"]

        /// An envelope with these settings.
        public init(codeKeyPath: String? = nil, okValues: [OKValue]? = nil, messageKeyPaths: [String]? = nil,
                    contentKeyPath: String? = nil) {
            self.codeKeyPath = codeKeyPath
            self.okValues = okValues
            self.messageKeyPaths = messageKeyPaths
            self.contentKeyPath = contentKeyPath
        }

        /// This envelope's settings, each replaced by `overrides`' where that has one.
        func overridden(by overrides: Envelope) -> Envelope {
            Envelope(codeKeyPath: overrides.codeKeyPath ?? codeKeyPath, okValues: overrides.okValues ?? okValues,
                     messageKeyPaths: overrides.messageKeyPaths ?? messageKeyPaths,
                     contentKeyPath: overrides.contentKeyPath ?? contentKeyPath)
        }
    }

    /// The success code: `0` or `"ok"`.
    public enum OKValue: Equatable, Sendable, Codable {
        /// A number.
        case int(Int)
        /// A string.
        case string(String)

        /// Decodes a number or a string.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int.self) {
                self = .int(number)
            } else {
                self = .string(try container.decode(String.self))
            }
        }

        /// Encodes the number or string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .int(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            }
        }
    }

    /// One operation's envelope: none (`envelope: false`), or key paths overriding the service's.
    public struct OperationSettings: Equatable, Sendable {
        /// False when this operation's answers have no envelope.
        public var usesEnvelope = true
        /// Overrides of the service's envelope for this operation.
        public var envelope = Envelope()

        /// Settings with no overrides.
        public init() {}
    }

    /// The defaults: no envelope, no downloads, no caching.
    public init() {}
}

extension GeneratorConfig: Decodable {
    private enum Keys: String, CodingKey, CaseIterable {
        case name, access, envelope, downloads, cache, operations
    }

    /// Decodes the configuration; unknown keys are errors (a typo must not go unnoticed).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        for key in container.allKeys where Keys(rawValue: key.stringValue) == nil {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "unknown key \"\(key.stringValue)\" (expected one of \(Keys.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        name = try container.decodeIfPresent(String.self, forKey: AnyKey("name"))
        access = try container.decodeIfPresent(String.self, forKey: AnyKey("access")) ?? "public"
        guard access == "public" || access == "internal" else {
            throw DecodingError.dataCorruptedError(forKey: AnyKey("access"), in: container,
                                                   debugDescription: "access must be public or internal, not \(access)")
        }
        envelope = try container.decodeIfPresent(Envelope.self, forKey: AnyKey("envelope"))
        downloads = try container.decodeIfPresent([String].self, forKey: AnyKey("downloads")) ?? []
        cache = try container.decodeIfPresent([String: Int].self, forKey: AnyKey("cache")) ?? [:]
        operations = try container.decodeIfPresent([String: OperationSettings].self, forKey: AnyKey("operations")) ?? [:]
    }

    /// Reads a configuration file (YAML or JSON). Errors name the file and line.
    public static func load(from url: URL) throws -> GeneratorConfig {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw GeneratorError(file: url.path, message: "cannot read the configuration: \(error.localizedDescription)")
        }
        return try parse(text, file: url.path)
    }

    /// Parses a configuration text (YAML or JSON); `file` names it in errors.
    public static func parse(_ text: String, file: String) throws -> GeneratorConfig {
        do {
            return try YAMLDecoder().decode(GeneratorConfig.self, from: text)
        } catch let error as DecodingError where YAMLErrors.yamlError(in: error) == nil {
            let (path, message) = DecodingErrors.describe(error)
            let pointer = JSONPointer(path)
            throw GeneratorError(file: file, line: SourceLocator(text: text).line(of: pointer),
                                 pointer: path.isEmpty ? nil : pointer.description,
                                 message: "invalid configuration: \(message)")
        } catch {
            throw GeneratorError(file: file, line: YAMLErrors.line(of: error),
                                 message: "the configuration is not valid YAML or JSON: \(YAMLErrors.summary(of: error))")
        }
    }
}

extension GeneratorConfig.Envelope: Decodable {
    /// Decodes the four settings; unknown keys are errors (`checkKeyPath` is not `codeKeyPath`).
    public init(from decoder: any Decoder) throws {
        try self.init(from: decoder, allowing: [])
    }

    /// Decodes the settings from an object that may also hold the `extra` keys.
    init(from decoder: any Decoder, allowing extra: [String]) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        let known = extra + Self.keys
        for key in container.allKeys where !known.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(forKey: key, in: container,
                                                   debugDescription: "unknown key \"\(key.stringValue)\" (expected one of \(known.joined(separator: ", ")))")
        }
        codeKeyPath = try container.decodeIfPresent(String.self, forKey: AnyKey("codeKeyPath"))
        okValues = try container.decodeIfPresent([GeneratorConfig.OKValue].self, forKey: AnyKey("okValues"))
        messageKeyPaths = try container.decodeIfPresent([String].self, forKey: AnyKey("messageKeyPaths"))
        contentKeyPath = try container.decodeIfPresent(String.self, forKey: AnyKey("contentKeyPath"))
    }
}

extension GeneratorConfig.OperationSettings: Decodable {
    /// Decodes `false`, or an object of key paths with an optional `envelope: false`.
    public init(from decoder: any Decoder) throws {
        if let flag = try? decoder.singleValueContainer().decode(Bool.self) {
            usesEnvelope = flag
            return
        }
        let container = try decoder.container(keyedBy: AnyKey.self)
        usesEnvelope = try container.decodeIfPresent(Bool.self, forKey: AnyKey("envelope")) ?? true
        envelope = try GeneratorConfig.Envelope(from: decoder, allowing: ["envelope"])
    }
}

/// A coding key made from any string.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        stringValue = string
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// Decoding errors as a key path and a sentence.
enum DecodingErrors {
    static func describe(_ error: DecodingError) -> (path: [String], message: String) {
        func keys(_ context: DecodingError.Context) -> [String] {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
        }
        switch error {
        case .typeMismatch(let type, let context):
            return (keys(context), "expected \(type): \(context.debugDescription)")
        case .valueNotFound(let type, let context):
            return (keys(context), "missing \(type): \(context.debugDescription)")
        case .keyNotFound(let key, let context):
            return (keys(context), "missing key \"\(key.stringValue)\"")
        case .dataCorrupted(let context):
            return (keys(context), context.debugDescription)
        @unknown default:
            return ([], "\(error)")
        }
    }
}

/// Positions in Yams' parse errors.
enum YAMLErrors {
    /// The Yams error inside `error` (Yams' decoder wraps it in a `DecodingError`), if any.
    static func yamlError(in error: any Error) -> YamlError? {
        if let error = error as? YamlError { return error }
        if case .dataCorrupted(let context)? = error as? DecodingError { return context.underlyingError as? YamlError }
        return nil
    }

    /// Yams' message on one line, without the quoted snippet and caret it adds.
    static func summary(of error: any Error) -> String {
        guard let yaml = yamlError(in: error) else { return "\(error)" }
        let lines = "\(yaml)".split(separator: "\n").map(String.init)
        return (lines.count > 2 ? lines.dropLast(2) : lines[...]).joined(separator: " ")
    }

    static func line(of error: any Error) -> Int? {
        guard let error = yamlError(in: error) else { return nil }
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _):
            return mark.line
        default:
            return nil
        }
    }
}
#endif
