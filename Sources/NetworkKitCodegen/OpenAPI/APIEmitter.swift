#if CodeGeneration
/// Writes the generated file: a namespace enum with a function per operation, the helpers they
/// use, and the models.
struct APIEmitter {
    var namespace: String
    var access: String
    var sourceName: String
    var title: String
    var summary: String?
    var version: String
    var operations: [OperationDeclaration]
    var models: [ModelDeclaration]
    var usesDates: Bool
    var usesPathSegments: Bool

    /// The generated source as one file.
    func emit() -> String { emit(files: 1)[0] }

    /// The generated source split across `files` files (at least one): the first holds the
    /// namespace and its helpers, the others extensions of it with the operations and models in
    /// parts of about equal size, so the compiler can build them in parallel and again one by one.
    func emit(files: Int) -> [String] {
        let split = files > 1
        var first = SwiftWriter()
        header(into: &first)
        first.doc([title + " \(version)", summary].compactMap { $0 }.joined(separator: "\n\n")
                  + "\n\nEach function returns a configured `Request`; start it on a `Service` whose base URL is the API's.")
        first.block("\(access)enum \(namespace)") { writer in
            writer.line("/// Where this API's parsers look up model converters: register your own here to replace")
            writer.line("/// `Codable` for a model. Models with none decode with `Codable`\(usesDates ? ", dates as ISO 8601" : "").")
            if usesDates {
                writer.line("\(access)static let models: ModelRegistry = {")
                writer.line("    let registry = ModelRegistry()")
                writer.line("    registry.defaultConverter = CodableConverter(decoder: {")
                writer.line("        let decoder = JSONDecoder()")
                writer.line("        decoder.dateDecodingStrategy = .custom { decoder in")
                writer.line("            let text = try decoder.singleValueContainer().decode(String.self)")
                writer.line("            if let date = try? Date(text, strategy: .iso8601) { return date }")
                writer.line("            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {")
                writer.line("                return date")
                writer.line("            }")
                writer.line("            throw DecodingError.dataCorrupted(DecodingError.Context(")
                writer.line("                codingPath: decoder.codingPath, debugDescription: \"not an ISO 8601 date: \\(text)\"))")
                writer.line("        }")
                writer.line("        return decoder")
                writer.line("    }())")
                writer.line("    return registry")
                writer.line("}()")
            } else {
                writer.line("\(access)static let models = ModelRegistry()")
            }
            if !split {
                for operation in operations {
                    writer.line()
                    emit(operation, into: &writer)
                }
            }
            emitHelpers(into: &writer, shared: split)
        }
        let modelEmitter = ModelEmitter(access: access)
        guard split else {
            if !models.isEmpty {
                first.line()
                first.line("// MARK: - Models")
                first.line()
                first.block("extension \(namespace)") { writer in
                    for (index, model) in models.enumerated() {
                        if index > 0 { writer.line() }
                        modelEmitter.emit(model, into: &writer)
                    }
                }
            }
            return [first.text]
        }
        // Each operation and model on its own, then packed into the other files by size.
        var pieces: [[String]] = operations.map { operation in
            var writer = SwiftWriter()
            emit(operation, into: &writer)
            return writer.lines
        }
        pieces += models.map { model in
            var writer = SwiftWriter()
            modelEmitter.emit(model, into: &writer)
            return writer.lines
        }
        let total = pieces.reduce(0) { $0 + $1.count }
        let target = max(1, total / (files - 1) + 1)
        var parts: [[[String]]] = [[]]
        var size = 0
        for piece in pieces {
            if size >= target, parts.count < files - 1 {
                parts.append([])
                size = 0
            }
            parts[parts.count - 1].append(piece)
            size += piece.count
        }
        while parts.count < files - 1 { parts.append([]) }
        return [first.text] + parts.map { part in
            var writer = SwiftWriter()
            header(into: &writer)
            guard !part.isEmpty else { return writer.text }
            writer.block("extension \(namespace)") { writer in
                for (index, piece) in part.enumerated() {
                    if index > 0 { writer.line() }
                    for line in piece { writer.line(line) }
                }
            }
            return writer.text
        }
    }

    private func header(into writer: inout SwiftWriter) {
        writer.line("// Generated by the NetworkKitOpenAPI plugin from \(sourceName). Do not edit: change the document")
        writer.line("// (or networkkit-openapi.yaml) and build again.")
        writer.line()
        writer.line("import Foundation")
        writer.line("import NetworkKit")
        writer.line()
    }

    private func emit(_ operation: OperationDeclaration, into writer: inout SwiftWriter) {
        var doc = operation.doc
        doc.append("`\(operation.method.uppercased()) \(operation.rawPath)`")
        var lines = doc.joined(separator: "\n\n")
        if !operation.parameters.isEmpty {
            lines += "\n\n- Parameters:"
            for parameter in operation.parameters {
                let text = parameter.doc.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
                lines += "\n  - \(SwiftNames.bare(parameter.name)): \(text)"
            }
        }
        lines += (operation.parameters.isEmpty ? "\n\n" : "\n")
            + (operation.isStream ? "- Returns: A streaming request whose items are `\(operation.outputType)`."
                                  : "- Returns: A request whose value is `\(operation.outputType)`.")
        if operation.throwsError { lines += "\n- Throws: `NetworkError.invalidRequest` when the body cannot be encoded as JSON." }
        writer.doc(lines)

        let signature = operation.parameters.map { parameter in
            let label = parameter.label.map { $0 + " " } ?? ""
            return parameter.isRequired ? "\(label)\(parameter.name): \(parameter.type)"
                                        : "\(label)\(parameter.name): \(parameter.type)? = nil"
        }
        let effects = operation.throwsError ? " throws(NetworkError)" : ""
        let requestType = operation.isStream ? "StreamRequest" : "Request"
        writer.block("\(access)static func \(operation.name)(\(signature.joined(separator: ", ")))\(effects) -> \(requestType)<\(operation.outputType)>") { writer in
            let queryOrForm = operation.parameters.filter { if case .parameter = $0.placement { return true } else { return false } }
            let headers = operation.parameters.filter { if case .header = $0.placement { return true } else { return false } }
            if !queryOrForm.isEmpty {
                writer.line("var parameters: [String: JSON] = [:]")
                for parameter in queryOrForm {
                    guard case .parameter(let key, let convert) = parameter.placement else { continue }
                    writer.line(assignment("parameters[\(SwiftNames.literal(key))]", parameter, convert.json))
                }
            }
            if !headers.isEmpty || operation.isStream {
                writer.line("var headerFields: HTTPFields = [:]")
                if !headers.isEmpty { writer.line("// Each name was checked to be a token when this was generated: none fails.") }
                for parameter in headers {
                    guard case .header(let key, let convert) = parameter.placement else { continue }
                    writer.line(assignment("headerFields[HTTPField.Name(\(SwiftNames.literal(key)))!]", parameter, convert.text))
                }
            }
            var arguments = ["\"\(operation.pathExpression)\""]
            if case .download = operation.response {
                let destination = operation.parameters.first { if case .destination = $0.placement { return true } else { return false } }
                arguments.append("downloadTo: \(destination?.name ?? "destination")")
            }
            if operation.method != "get" { arguments.append("method: .\(operation.method)") }
            if !queryOrForm.isEmpty { arguments.append("parameters: parameters") }
            if !headers.isEmpty || operation.isStream { arguments.append("headerFields: headerFields") }
            switch operation.response {
            case .model(let type, let envelope):
                arguments.append("parser: parser(\(type).self\(envelopeArguments(envelope)))")
            case .string: arguments.append("parser: StringParser()")
            case .data, .download: break
            case .stream(let format, let item):
                let accept = "headerFields[.accept] = \(SwiftNames.literal(format.mediaType))"
                // An `Accept` header parameter the caller set wins.
                writer.line(headers.isEmpty ? accept : "if headerFields[.accept] == nil { \(accept) }")
                arguments.append("parser: \(format.parser(item: item))")
                if format == .events, operation.method == "get" { arguments.append("reconnection: .eventSource") }
            }
            writer.line("let request = \(requestType)(path: \(arguments.joined(separator: ", ")))")
            switch operation.body {
            case .json?:
                if let body = operation.parameters.first(where: { if case .jsonBody = $0.placement { return true } else { return false } }) {
                    if body.isRequired {
                        writer.line("request.body = try .json(\(body.name), encoder: jsonEncoder())")
                    } else {
                        writer.line("if let \(body.name) { request.body = try .json(\(body.name), encoder: jsonEncoder()) }")
                    }
                }
            case .form?:
                writer.line("request.body = .form")
            case .multipart?:
                writer.line("var form = MultipartForm()")
                for parameter in operation.parameters {
                    let value = parameter.isRequired ? parameter.name : SwiftNames.bare(parameter.name)
                    let open = parameter.isRequired ? "" : "if let \(parameter.name) { "
                    let close = parameter.isRequired ? "" : " }"
                    switch parameter.placement {
                    case .multipartField(let key, let convert):
                        if case .array(let element) = convert {
                            writer.line("\(open)for item in \(value) { form.append(\(element.text("item")), name: \(SwiftNames.literal(key))) }\(close)")
                        } else {
                            writer.line("\(open)form.append(\(convert.text(value)), name: \(SwiftNames.literal(key)))\(close)")
                        }
                    case .multipartFile(let key, let contentType):
                        let type = contentType.map { ", contentType: \(SwiftNames.literal($0))" } ?? ""
                        writer.line("\(open)form.append(\(value), name: \(SwiftNames.literal(key)), fileName: \(SwiftNames.literal(key))\(type))\(close)")
                    default:
                        continue
                    }
                }
                writer.line("request.body = .multipart(form)")
            case .data?:
                if let body = operation.parameters.first(where: { if case .dataBody = $0.placement { return true } else { return false } }),
                   case .dataBody(let type) = body.placement {
                    if body.isRequired {
                        writer.line("request.body = .data(\(body.name), contentType: \(SwiftNames.literal(type)))")
                    } else {
                        writer.line("if let \(body.name) { request.body = .data(\(body.name), contentType: \(SwiftNames.literal(type))) }")
                    }
                }
            case nil:
                break
            }
            if let seconds = operation.cacheSeconds { writer.line("request.cache = CachePolicy(lifetime: .seconds(\(seconds)))") }
            writer.line("return request")
        }
    }

    /// `target = value` for a required parameter, `target = parameter.map { value }` otherwise.
    private func assignment(_ target: String, _ parameter: OperationDeclaration.Parameter, _ convert: (String) -> String) -> String {
        if parameter.isRequired || convert("$0") == "$0" { return "\(target) = \(convert(parameter.name))" }
        return "\(target) = \(parameter.name).map { \(convert("$0")) }"
    }

    /// `, businessCode: BusinessCodeCheck(…), content: "…"` for the envelope's settings; a
    /// `BusinessCodeCheck` setting left out takes its default.
    private func envelopeArguments(_ envelope: GeneratorConfig.Envelope?) -> String {
        guard let envelope else { return "" }
        var arguments: [String] = []
        if let code = envelope.codeKeyPath {
            var check = ["codeKeyPath: \(SwiftNames.literal(code))"]
            if let okValues = envelope.okValues {
                let values = okValues.map { value in
                    switch value {
                    case .int(let number): return String(number)
                    case .string(let text): return SwiftNames.literal(text)
                    }
                }
                check.append("okValues: [\(values.joined(separator: ", "))]")
            }
            if let messages = envelope.messageKeyPaths {
                check.append("messageKeyPaths: [\(messages.map(SwiftNames.literal).joined(separator: ", "))]")
            }
            arguments.append("businessCode: BusinessCodeCheck(\(check.joined(separator: ", ")))")
        }
        if let content = envelope.contentKeyPath { arguments.append("content: \(SwiftNames.literal(content))") }
        return arguments.isEmpty ? "" : ", " + arguments.joined(separator: ", ")
    }

    /// The helpers of the operations: `private`, or internal when the operations are in other files.
    private func emitHelpers(into writer: inout SwiftWriter, shared: Bool) {
        let scope = shared ? "" : "private "
        let usesModels = operations.contains {
            switch $0.response {
            case .model, .stream(_, item: _?): return true
            default: return false
            }
        }
        let usesJSONBody = operations.contains { $0.body == .json }
        if usesModels {
            writer.line()
            writer.line("/// The parser of a model in the document's JSON, with the business-code check and content key")
            writer.line("/// path the document's configuration gives (the service's envelope does not apply).")
            writer.block("\(scope)static func parser<Model: Decodable & Sendable>(\n        _ type: Model.Type, businessCode: BusinessCodeCheck? = nil, content: JSONKeyPath? = nil\n    ) -> ModelParser<Model>") { writer in
                writer.line("var json = JSONParser(businessCode: businessCode, contentKeyPath: content)")
                writer.line("json.usesServiceEnvelope = false")
                writer.line("return ModelParser(type, json: json, registry: models)")
            }
        }
        if usesJSONBody {
            writer.line()
            writer.line("/// The encoder of JSON bodies\(usesDates ? " (dates as ISO 8601)" : "").")
            writer.block("\(scope)static func jsonEncoder() -> JSONEncoder") { writer in
                writer.line("let encoder = JSONEncoder()")
                writer.line("encoder.outputFormatting = .sortedKeys")
                if usesDates { writer.line("encoder.dateEncodingStrategy = .iso8601") }
                writer.line("return encoder")
            }
        }
        if usesPathSegments {
            writer.line()
            writer.line("/// `value` percent-escaped as one path segment (a `/` in it does not start another).")
            writer.block("\(scope)static func segment(_ value: String) -> String") { writer in
                writer.line("value.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: \"/\"))) ?? value")
            }
        }
    }
}

extension OperationDeclaration.StreamFormat {
    /// The media type a request asks for.
    var mediaType: String {
        switch self {
        case .events: return "text/event-stream"
        case .jsonLines: return "application/jsonl, application/x-ndjson"
        case .jsonSequence: return "application/json-seq"
        }
    }

    /// The stream parser of this format, for items of type `item` (or untyped).
    func parser(item: String?) -> String {
        switch self {
        case .events: return item.map { "EventDataParser(parser(\($0).self))" } ?? "ServerSentEventParser()"
        case .jsonLines: return item.map { "JSONLinesParser(parser(\($0).self))" } ?? "JSONLinesParser()"
        case .jsonSequence: return item.map { "JSONSequenceParser(parser(\($0).self))" } ?? "JSONSequenceParser()"
        }
    }
}
#endif
