#if CodeGeneration
import Foundation
import OpenAPIKit

/// Turns the document's operations into `OperationDeclaration`s: parameters with their types,
/// the body, the response model (inside the configured envelope), downloads and cache lifetimes.
struct OperationTranslator {
    var schemas: SchemaTranslator
    let config: GeneratorConfig
    let source: SourceFile
    /// Types declared for inline schemas of parameters, bodies and responses.
    var inlineTypes: [ModelDeclaration] = []
    /// Problems that do not stop generation: skipped operations and cookie parameters, methods
    /// without a NetworkKit counterpart, deprecated parameters.
    var warnings: [GeneratorWarning] = []
    /// True when some operation interpolates a path parameter.
    var usesPathSegments = false
    private var typeNames: UniqueNames
    private var functionNames = UniqueNames()
    private var operationIDs: [String: JSONPointer] = [:]

    private var document: OpenAPI.Document { schemas.document }

    init(schemas: SchemaTranslator, config: GeneratorConfig, source: SourceFile, namespace: String) {
        self.schemas = schemas
        self.config = config
        self.source = source
        typeNames = UniqueNames(reserved: schemas.componentTypeNames, also: [namespace])
    }

    /// Every operation of every path, in the document's order.
    mutating func operations() throws -> [OperationDeclaration] {
        var result: [OperationDeclaration] = []
        for (path, item) in document.paths {
            let itemPointer = JSONPointer(["paths", path.rawValue])
            let pathItem = try resolve(item, at: itemPointer)
            for endpoint in pathItem.endpoints {
                let methodKey = endpoint.method.rawValue.lowercased()
                let pointer = itemPointer.appending(methodKey)
                guard let method = Self.methods[methodKey] else {
                    warnings.append(source.warning(.skippedOperation, at: pointer, "skipped: NetworkKit has no \(endpoint.method.rawValue) requests"))
                    continue
                }
                // An operation with a construct NetworkKit cannot express is left out, not the document.
                let saved = (schemas, inlineTypes, typeNames, functionNames, usesPathSegments)
                do {
                    result += try operation(endpoint.operation, method: method, path: path.rawValue,
                                            pathParameters: pathItem.parameters, at: pointer)
                } catch let error as GeneratorError where error.isUnsupportedConstruct {
                    (schemas, inlineTypes, typeNames, functionNames, usesPathSegments) = saved
                    let id = endpoint.operation.operationId ?? "\(endpoint.method.rawValue) \(path.rawValue)"
                    warnings.append(GeneratorWarning(kind: .skippedOperation, file: error.file, line: error.line,
                                                     pointer: error.pointer ?? pointer.description,
                                                     message: "skipped operation \(id): \(error.message)"))
                }
            }
        }
        for id in config.downloads where operationIDs[id] == nil {
            throw GeneratorError(file: source.path, message: "the configuration lists download \"\(id)\", which is no operationId of the document")
        }
        for id in Set(config.cache.keys).union(config.operations.keys).sorted() where operationIDs[id] == nil {
            throw GeneratorError(file: source.path, message: "the configuration names operation \"\(id)\", which is no operationId of the document")
        }
        for id in operationIDs.keys.sorted() {
            if let envelope = effectiveEnvelope(for: id), envelope.codeKeyPath == nil,
               envelope.okValues != nil || envelope.messageKeyPaths != nil {
                throw GeneratorError(file: source.path, message: "the configuration's envelope for \"\(id)\" gives okValues or messageKeyPaths but no codeKeyPath to check them at")
            }
        }
        return result
    }

    private static let methods = ["get": "get", "post": "post", "put": "put", "patch": "patch", "delete": "delete", "head": "head"]

    /// The operation's request function; and a second one, named `…Stream`, when its answer is
    /// offered both as JSON and as a stream.
    private mutating func operation(_ operation: OpenAPI.Operation, method: String, path: String,
                                    pathParameters: OpenAPI.Parameter.Array, at pointer: JSONPointer) throws -> [OperationDeclaration] {
        let id = operation.operationId ?? (method + " " + path)
        if let first = operationIDs[id] {
            throw source.error(at: pointer.appending("operationId"), "duplicate operationId \"\(id)\" (first used at \(first))")
        }
        operationIDs[id] = pointer
        let name = functionNames.claim(SwiftNames.property(id))
        let typePrefix = SwiftNames.type(id)
        var locals = UniqueNames(reserved: ["request", "parameters", "headerFields", "form"])

        // Parameters: the path item's, overridden by the operation's of the same name and place.
        var declared: [(OpenAPI.Parameter, JSONPointer)] = []
        for (index, either) in pathParameters.enumerated() {
            let at = pointer.dropLast().appending("parameters").appending(index)
            declared.append((try resolve(either, at: at), at))
        }
        for (index, either) in operation.parameters.enumerated() {
            let at = pointer.appending("parameters").appending(index)
            let parameter = try resolve(either, at: at)
            declared.removeAll { $0.0.name == parameter.name && $0.0.location == parameter.location }
            declared.append((parameter, at))
        }

        var parameters: [OperationDeclaration.Parameter] = []
        var pathNames: [String: String] = [:]
        for (parameter, at) in declared {
            if parameter.deprecated {
                warnings.append(source.warning(.note, at: at, "parameter \"\(parameter.name)\" of \(id) is deprecated"))
            }
            let schema: JSONSchema
            switch parameter.schemaOrContent {
            case .a(let context):
                schema = context.schema.flattenToJsonSchema()
            case .b:
                throw source.error(at: at.appending("content"), "unsupported construct: parameter \"\(parameter.name)\" described by content instead of a schema")
            }
            let kind: String
            switch parameter.location {
            case .path: kind = "path"
            case .query: kind = "query"
            case .header: kind = "header"
            case .cookie:
                warnings.append(source.warning(.skippedParameter, at: at, "skipped cookie parameter \"\(parameter.name)\" of \(id): set cookies on the service"))
                continue
            default:
                throw source.error(at: at.appending("in"), "unsupported construct: parameter location \(parameter.location.rawValue)")
            }
            let typed = try scalar(schema, at: at.appending("schema"), suggestedName: typePrefix + SwiftNames.type(parameter.name),
                                   what: "\(kind) parameter \"\(parameter.name)\"")
            let swiftName = locals.claim(SwiftNames.property(parameter.name))
            let placement: OperationDeclaration.Placement
            switch parameter.location {
            case .path:
                placement = .path
                pathNames[parameter.name] = typed.conversion.text(swiftName)
            case .header:
                guard SwiftNames.isToken(parameter.name) else {
                    throw source.error(at: at.appending("name"), "header parameter \"\(parameter.name)\" of \(id) is not a valid field name (RFC 9110 token)")
                }
                placement = .header(key: parameter.name, convert: typed.conversion)
            default: placement = .parameter(key: parameter.name, convert: typed.conversion)
            }
            // A path parameter is always there: a `null` its schema allows cannot be put in a path.
            let required = parameter.location == .path || (parameter.required && !typed.isNullable)
            parameters.append(.init(name: swiftName, type: typed.type, isRequired: required,
                                    doc: parameter.description?.trimmed ?? "The `\(parameter.name)` \(kind) parameter.",
                                    placement: placement))
        }

        // The path: every placeholder needs a path parameter, every path parameter a placeholder.
        var pathExpression = ""
        var placeholders: [String] = []
        var rest = Substring(path)
        while let open = rest.firstIndex(of: "{") {
            pathExpression += Self.escapedLiteral(rest[..<open])
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw source.error(at: pointer.dropLast(), "the path \(path) has a \"{\" without \"}\"")
            }
            let placeholder = String(rest[rest.index(after: open)..<close])
            guard let expression = pathNames[placeholder] else {
                throw source.error(at: pointer, "the path placeholder {\(placeholder)} of \(path) has no path parameter named \"\(placeholder)\"")
            }
            placeholders.append(placeholder)
            pathExpression += "\\(segment(\(expression)))"
            usesPathSegments = true
            rest = rest[rest.index(after: close)...]
        }
        pathExpression += Self.escapedLiteral(rest)
        if let orphan = declared.first(where: { $0.0.location == .path && !placeholders.contains($0.0.name) }) {
            throw source.error(at: orphan.1, "path parameter \"\(orphan.0.name)\" has no placeholder {\(orphan.0.name)} in \(path)")
        }

        // The body.
        var body: OperationDeclaration.Body?
        if let requestBody = operation.requestBody {
            let at = pointer.appending("requestBody")
            let request = try resolve(requestBody, at: at)
            body = try self.body(request, at: at, typePrefix: typePrefix, locals: &locals, into: &parameters)
            if body == .form, declared.contains(where: { $0.0.location == .query }) {
                throw source.error(at: at, "unsupported construct: a form body with query parameters (NetworkKit sends every parameter of a form request in its body)")
            }
        }

        // The response.
        let isDownload = config.downloads.contains(id)
        let response: OperationDeclaration.Response
        var stream: OperationDeclaration.Response?
        if isDownload {
            response = .download
            parameters.append(.init(name: locals.claim("destination"), type: "Download.Destination", isRequired: true,
                                    doc: "Where the file goes.", placement: .destination, label: "to"))
        } else {
            (response, stream) = try self.response(of: operation, id: id, at: pointer.appending("responses"), typePrefix: typePrefix)
        }

        let cache = config.cache[id]
        if cache != nil, method != "get" {
            warnings.append(source.warning(.note, at: pointer, "cache lifetime for \(id), a \(method.uppercased()) request"))
        }
        var doc: [String] = []
        for part in [operation.summary, operation.description] {
            if let part = part?.trimmed, !part.isEmpty, !doc.contains(part) { doc.append(part) }
        }
        if operation.deprecated { doc.append("- Warning: Deprecated by the API description.") }
        let ordered = parameters.filter { $0.isRequired } + parameters.filter { !$0.isRequired }
        let declaration = OperationDeclaration(name: name, doc: doc, method: method, pathExpression: pathExpression, rawPath: path,
                                               parameters: ordered, body: body, response: response, cacheSeconds: cache)
        guard let stream else { return [declaration] }
        var streaming = declaration
        streaming.name = functionNames.claim(SwiftNames.property(id + "Stream"))
        streaming.response = stream
        streaming.cacheSeconds = nil
        streaming.isStreamVariant = true
        streaming.doc.append("The answer as a stream, read as it arrives.")
        return [declaration, streaming]
    }

    private mutating func body(_ request: OpenAPI.Request, at pointer: JSONPointer, typePrefix: String,
                               locals: inout UniqueNames, into parameters: inout [OperationDeclaration.Parameter])
        throws -> OperationDeclaration.Body {
        let contents = request.content.map { (type: $0.key.rawValue, content: $0.value) }
        func find(_ match: (String) -> Bool) -> (type: String, content: Either<OpenAPI.Reference<OpenAPI.Content>, OpenAPI.Content>)? {
            contents.first { match($0.type.lowercased()) }
        }
        let json = find(OperationDeclaration.isJSON)
        let form = find { $0.hasPrefix("application/x-www-form-urlencoded") }
        let multipart = find { $0.hasPrefix("multipart/form-data") }
        guard let chosen = json ?? form ?? multipart ?? contents.first else {
            throw source.error(at: pointer.appending("content"), "a request body without content")
        }
        let contentPointer = pointer.appending("content").appending(chosen.type)
        let content = try resolve(chosen.content, at: contentPointer)
        let schemaPointer = contentPointer.appending("schema")
        let schema = content.schema ?? .fragment(.init())
        let description = request.description?.trimmed ?? "The request body."

        if json != nil {
            var nested: [ModelDeclaration] = []
            let translation = try schemas.translateOrJSON(schema, at: .init(pointer: schemaPointer, suggestedName: typePrefix + "Body"),
                                                          nested: &nested, scope: &typeNames)
            inlineTypes += nested
            parameters.append(.init(name: locals.claim("body"), type: translation.type,
                                    isRequired: request.required && !translation.isNullable, doc: description, placement: .jsonBody))
            return .json
        }
        if form != nil || multipart != nil {
            let isForm = form != nil
            for (key, property) in try schemas.objectProperties(of: schema, at: schemaPointer) {
                let at = schemaPointer.appending("properties").appending(key)
                let name = locals.claim(SwiftNames.property(key))
                let doc = property.description?.trimmed ?? "The `\(key)` field."
                if !isForm, let fileType = fileContentType(property, key: key, in: content) {
                    parameters.append(.init(name: name, type: "Data", isRequired: property.required, doc: doc,
                                            placement: .multipartFile(key: key, contentType: fileType)))
                    continue
                }
                let typed = try scalar(property, at: at, suggestedName: typePrefix + SwiftNames.type(key), what: "form field \"\(key)\"")
                parameters.append(.init(name: name, type: typed.type, isRequired: property.required && !typed.isNullable, doc: doc,
                                        placement: isForm ? .parameter(key: key, convert: typed.conversion)
                                                          : .multipartField(key: key, convert: typed.conversion)))
            }
            return isForm ? .form : .multipart
        }
        let type = chosen.type == "*/*" ? "application/octet-stream" : chosen.type
        parameters.append(.init(name: locals.claim("body"), type: "Data", isRequired: request.required, doc: description,
                                placement: .dataBody(contentType: type)))
        return .data
    }

    /// The content type of a multipart property that is a file (`format: binary`), or nil.
    private func fileContentType(_ property: JSONSchema, key: String, in content: OpenAPI.Content) -> String?? {
        guard let resolved = try? schemas.resolved(property, at: JSONPointer()).schema,
              case .string(let core, let string) = resolved.value,
              core.format.rawValue == "binary" || string.contentMediaType != nil else { return nil }
        return .some(content.encodingMap?[key]?.contentTypes.first?.rawValue ?? string.contentMediaType?.rawValue)
    }

    /// What the request's value is; and, when the answer is offered both as JSON and as a stream,
    /// the stream too.
    private mutating func response(of operation: OpenAPI.Operation, id: String, at pointer: JSONPointer,
                                   typePrefix: String) throws -> (OperationDeclaration.Response, stream: OperationDeclaration.Response?) {
        let entries = Array(operation.responses)
        let success = entries.filter { if case .status(let code) = $0.key.value { return (200..<300).contains(code) } else { return false } }
            .sorted { $0.key.rawValue < $1.key.rawValue }.first
            ?? entries.first { $0.key.value == .range(.success) }
            ?? entries.first { $0.key.value == .default }
        guard let (status, either) = success else { return (.data, nil) }
        let responsePointer = pointer.appending(status.rawValue)
        let response = try resolve(either, at: responsePointer)
        let contents = response.content.map { (type: $0.key.rawValue, content: $0.value) }
        guard !contents.isEmpty else { return (.data, nil) }
        var stream: OperationDeclaration.Response?
        if let found = contents.lazy.compactMap({ entry in OperationDeclaration.StreamFormat(mediaType: entry.type).map { (entry, $0) } }).first {
            let contentPointer = responsePointer.appending("content").appending(found.0.type)
            stream = try self.stream(found.1, of: try resolve(found.0.content, at: contentPointer), at: contentPointer.appending("schema"),
                                     typePrefix: typePrefix)
        }
        let hasJSON = contents.contains { OperationDeclaration.isJSON($0.type) }
        if let stream, !hasJSON { return (stream, nil) }
        return (try plainResponse(contents, id: id, at: responsePointer, typePrefix: typePrefix), stream)
    }

    /// A stream of `format`, its items typed by the schema of one item when the document gives
    /// one (an array schema gives its items; a string schema describes the text, not an item).
    private mutating func stream(_ format: OperationDeclaration.StreamFormat, of content: OpenAPI.Content, at pointer: JSONPointer,
                                 typePrefix: String) throws -> OperationDeclaration.Response {
        guard var schema = content.schema else { return .stream(format, item: nil) }
        var schemaPointer = pointer
        if case .array(_, let array) = schema.value, let items = array.items {
            schema = items
            schemaPointer = schemaPointer.appending("items")
        }
        if schema.isEmptyFragment { return .stream(format, item: nil) }
        if case .string = schema.value { return .stream(format, item: nil) }
        var nested: [ModelDeclaration] = []
        let translation = try schemas.translateOrJSON(schema, at: .init(pointer: schemaPointer, suggestedName: typePrefix + "Item"),
                                                      nested: &nested, scope: &typeNames)
        inlineTypes += nested
        return .stream(format, item: translation.type + (translation.isNullable ? "?" : ""))
    }

    /// A model, text or bytes.
    private mutating func plainResponse(_ contents: [(type: String, content: Either<OpenAPI.Reference<OpenAPI.Content>, OpenAPI.Content>)],
                                        id: String, at responsePointer: JSONPointer, typePrefix: String) throws -> OperationDeclaration.Response {
        if let json = contents.first(where: { OperationDeclaration.isJSON($0.type) }) {
            let contentPointer = responsePointer.appending("content").appending(json.type)
            let content = try resolve(json.content, at: contentPointer)
            var schema = content.schema ?? .fragment(.init())
            var schemaPointer = contentPointer.appending("schema")
            let envelope = effectiveEnvelope(for: id)
            if let path = envelope?.contentKeyPath {
                for key in path.split(separator: "/").map(String.init) {
                    let properties = try schemas.objectProperties(of: schema, at: schemaPointer)
                    guard let property = properties.first(where: { $0.0 == key }) else {
                        throw source.error(at: schemaPointer, "the response schema of \(id) has no property \"\(key)\" on the envelope's content key path \(path)")
                    }
                    let resolved = try schemas.resolved(schema, at: schemaPointer)
                    schemaPointer = resolved.pointer.appending("properties").appending(key)
                    schema = property.1
                }
            }
            var nested: [ModelDeclaration] = []
            let translation = try schemas.translateOrJSON(schema, at: .init(pointer: schemaPointer, suggestedName: typePrefix + "Response"),
                                                          nested: &nested, scope: &typeNames)
            inlineTypes += nested
            return .model(type: translation.type + (translation.isNullable ? "?" : ""), envelope: envelope)
        }
        if contents.contains(where: { $0.type.lowercased().hasPrefix("text/") }) { return .string }
        return .data
    }

    /// The operation's envelope: the configuration's, with the operation's overrides, or none.
    private func effectiveEnvelope(for id: String) -> GeneratorConfig.Envelope? {
        let settings = config.operations[id] ?? GeneratorConfig.OperationSettings()
        guard settings.usesEnvelope else { return nil }
        let own = settings.envelope
        guard let envelope = config.envelope else {
            return own == GeneratorConfig.Envelope() ? nil : own
        }
        return envelope.overridden(by: own)
    }

    /// The Swift type and conversion of a parameter or form field, which must be a scalar, an
    /// enum, or an array of those.
    private mutating func scalar(_ schema: JSONSchema, at pointer: JSONPointer, suggestedName: String,
                                 what: String) throws -> (type: String, conversion: ValueConversion, isNullable: Bool) {
        // A parameter without a type is text, as everything in a URL or a header is.
        if schema.isEmptyFragment { return ("String", .string, false) }
        var nested: [ModelDeclaration] = []
        let translation = try schemas.translate(schema, at: .init(pointer: pointer, suggestedName: suggestedName),
                                                nested: &nested, scope: &typeNames)
        inlineTypes += nested
        guard let conversion = try conversion(of: schema, at: pointer) else {
            throw source.error(at: pointer, "unsupported construct: \(what) of type \(translation.type) (parameters must be strings, numbers, booleans, enums or arrays of those)")
        }
        return (translation.type, conversion, translation.isNullable)
    }

    private func conversion(of schema: JSONSchema, at pointer: JSONPointer) throws -> ValueConversion? {
        let (target, targetPointer) = try schemas.resolved(schema, at: pointer)
        switch target.value {
        case .string(let core, _):
            if core.allowedValues != nil { return .stringEnum }
            switch core.format.rawValue {
            case "date-time": return .date
            case "uuid": return .uuid
            case "byte": return nil
            default: return .string
            }
        case .integer(let core, _):
            if core.allowedValues != nil { return .intEnum }
            return .integer(core.format.rawValue == "int32" ? "Int32" : core.format.rawValue == "int64" ? "Int64" : "Int")
        case .number(let core, _):
            return .number(core.format.rawValue == "float" ? "Float" : "Double")
        case .boolean:
            return .bool
        case .array(_, let array):
            guard let items = array.items, let element = try conversion(of: items, at: targetPointer.appending("items")) else { return nil }
            if case .array = element { return nil }
            return .array(element)
        case .one(let members, _), .any(let members, _), .all(let members, _):
            let options = members.filter { !$0.isNullOnly }
            guard options.count == 1, let only = options.first else { return nil }
            return try conversion(of: only, at: targetPointer)
        default:
            return nil
        }
    }

    /// `value` itself, or the component it refers to; an error naming the reference when it
    /// points nowhere.
    private func resolve<T: ComponentDictionaryLocatable>(_ either: Either<OpenAPI.Reference<T>, T>, at pointer: JSONPointer) throws -> T {
        switch either {
        case .b(let value):
            return value
        case .a(let reference):
            guard case .internal = reference.jsonReference else {
                throw source.error(at: pointer, "unsupported construct: external $ref \(reference.absoluteString) (only references into this document are read)")
            }
            do {
                return try document.components.lookup(either)
            } catch {
                throw source.error(at: pointer, "unresolved $ref \(reference.absoluteString)")
            }
        }
    }

    /// Literal path text, escaped for a Swift string literal.
    private static func escapedLiteral(_ text: Substring) -> String {
        String(SwiftNames.literal(String(text)).dropFirst().dropLast())
    }
}

extension JSONPointer {
    /// This pointer one key shallower.
    func dropLast() -> JSONPointer {
        JSONPointer(Array(keys.dropLast()))
    }
}
#endif
