import Foundation
import NetworkKitCodegen
import Testing

/// Real documents are large and imperfect: the well-understood mistakes are mended with a
/// warning at their line, constructs without a Swift type degrade to `JSON`, an operation that
/// cannot be expressed is skipped, and the rest of the document still generates.
@Suite struct TolerantLoadingTests {
    /// A 3.1 (or `version`) document of one schema `Thing` with `properties` (YAML, indented as
    /// under `properties:`), and one operation returning it.
    /// `schemas` are more component schemas, indented as under `schemas:`.
    static func document(version: String = "3.1.0", properties: String, schemas: String = "", paths: String = "") -> String {
        """
        openapi: \(version)
        info: {title: T, version: "1"}
        paths:
          /things:
            get:
              operationId: listThings
              responses:
                "200":
                  description: Things.
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Thing"}
        \(paths)
        components:
          schemas:
            Thing:
              type: object
              properties:
        \(properties)
        \(schemas)
        """
    }

    func generate(_ text: String, files: Int = 1) throws -> OpenAPIGenerator.Output {
        try OpenAPIGenerator.generate(document: text, fileName: "doc.yaml", files: files)
    }

    /// The one warning of `kind`, or a recorded failure.
    func warning(_ output: OpenAPIGenerator.Output, _ kind: GeneratorWarning.Kind,
                 sourceLocation: SourceLocation = #_sourceLocation) -> GeneratorWarning? {
        let found = output.warnings.filter { $0.kind == kind }
        #expect(found.count == 1, "\(output.warnings.map(\.description))", sourceLocation: sourceLocation)
        return found.first
    }

    @Test func integerBoundsOutsideInt64AreClamped() throws {
        let output = try generate(Self.document(properties: """
                    big: {type: integer, maximum: 9223372036854776000, minimum: -1e30}
                    fine: {type: integer, maximum: 1e3}
            """))
        let warnings = output.warnings.filter { $0.kind == .integerBound }
        #expect(warnings.count == 2, "\(warnings)")
        #expect(warnings.contains { $0.description == "doc.yaml:19: warning: the integer bound 9223372036854776000 is outside Int64: read as 9223372036854775807 (at #/components/schemas/Thing/properties/big/maximum)" }, "\(warnings)")
        #expect(output.source.contains("public var big: Int?"))
        #expect(output.source.contains("public var fine: Int?"))
    }

    @Test func exclusiveBoundsOfTheOtherVersionAreRewritten() throws {
        let boolean = try generate(Self.document(properties: """
                    count: {type: integer, minimum: 0, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false}
            """))
        #expect(boolean.warnings.filter { $0.kind == .exclusiveBound }.count == 2)
        let numeric = try generate(Self.document(version: "3.0.3", properties: """
                    count: {type: integer, exclusiveMinimum: 0}
            """))
        #expect(warning(numeric, .exclusiveBound)?.message == "a numeric exclusiveMinimum is OpenAPI 3.1: read as minimum with exclusiveMinimum: true")
    }

    @Test func nullableAndTypeArraysFollowTheDocumentsVersion() throws {
        let nullable = try generate(Self.document(properties: """
                    note: {type: string, nullable: true}
                    owner: {$ref: "#/components/schemas/Owner", nullable: true}
            """, schemas: """
                Owner: {type: object, properties: {name: {type: string}}}
            """))
        #expect(nullable.warnings.filter { $0.kind == .nullable }.count == 2)
        #expect(nullable.source.contains("public var note: String?"))
        #expect(nullable.source.contains("public var owner: Owner?"))

        let typeArray = try generate(Self.document(version: "3.0.3", properties: """
                    note: {type: [string, "null"]}
            """))
        #expect(warning(typeArray, .typeArray)?.line == 19)
        #expect(typeArray.source.contains("public var note: String?"))

        let several = try generate(Self.document(properties: """
                    either: {type: [string, integer]}
            """))
        #expect(warning(several, .typeArray)?.message.contains("several types (string, integer)") == true)
        #expect(several.source.contains("public var either: JSON?"))
    }

    @Test func parametersResponsesAndSchemaFlagsAreMended() throws {
        let output = try generate(Self.document(properties: """
                    flag: {type: boolean, required: true}
            """, paths: """
              /things/{id}:
                get:
                  operationId: getThing
                  parameters: [{name: id, in: path, schema: {type: string}}]
                  responses:
                    "200":
                      content: {application/json: {schema: {$ref: "#/components/schemas/Thing"}}}
            """))
        #expect(warning(output, .schemaRequiredFlag) != nil)
        #expect(warning(output, .pathParameterRequired)?.line == 16)
        #expect(warning(output, .responseDescription)?.pointer == "#/paths/~1things~1{id}/get/responses/200")
        #expect(output.source.contains("public static func getThing(id: String) -> Request<Thing>"))
        #expect(output.operationCount == 2)
    }

    @Test func swagger2FormsAreReadAsOpenAPI3() throws {
        let output = try generate("""
            openapi: 3.0.0
            host: example.com
            basePath: /v1
            info: {title: T, version: "1"}
            paths:
              /things/{id}:
                get:
                  operationId: getThing
                  parameters:
                    - {name: id, in: path, required: true, type: integer, minimum: 1}
                    - {name: tags, in: query, type: array, items: {type: string, nullable: true}, default: []}
                  responses:
                    "200":
                      description: A thing.
                      content:
                        application/json: {type: object, properties: {count: {type: integer, exclusiveMinimum: 0}}}
            """)
        #expect(warning(output, .unknownKeys)?.message == "Swagger 2 keys in an OpenAPI 3 document: host, basePath: ignored")
        #expect(output.warnings.filter { $0.kind == .parameterSchema }.count == 2)
        #expect(warning(output, .mediaTypeSchema)?.pointer == "#/paths/~1things~1{id}/get/responses/200/content/application~1json")
        // The moved keywords are mended as the schema they now are.
        #expect(warning(output, .exclusiveBound)?.pointer
                == "#/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/properties/count/exclusiveMinimum")
        #expect(output.source.contains("public static func getThing(id: Int, tags: [String?]? = nil) -> Request<GetThingResponse>"))
        #expect(output.source.contains("public var count: Int?"))
    }

    @Test func unsupportedSchemasDegradeToJSON() throws {
        let output = try generate(Self.document(properties: """
                    tree: {$recursiveRef: "#"}
                    dynamic: {$dynamicRef: "#node"}
                    never: {not: {type: string}}
                    far: {$ref: "other.yaml#/Thing"}
                    name: {type: string}
            """))
        #expect(output.warnings.filter { $0.kind == .dynamicReference }.count == 2)
        #expect(output.warnings.filter { $0.kind == .degradedToJSON }.count == 2, "\(output.warnings)")
        for property in ["tree", "dynamic", "never", "far"] {
            #expect(output.source.contains("public var \(property): JSON?"), "\(property)")
        }
        #expect(output.source.contains("public var name: String?"))
    }

    @Test func aSchemaContainingItselfReadsThatPropertyAsJSON() throws {
        let output = try generate(Self.document(properties: """
                    next: {$ref: "#/components/schemas/Thing"}
                    children: {type: array, items: {$ref: "#/components/schemas/Thing"}}
            """))
        #expect(warning(output, .degradedToJSON)?.message.contains("contains itself through a property of type Thing") == true)
        #expect(output.source.contains("public var next: JSON?"))
        #expect(output.source.contains("public var children: [Thing]?"))
    }

    @Test func aOneOfOnACycleIsIndirectAndKeepsItsTypes() throws {
        // Stripe's expandable fields: an id, or the object itself, which refers back.
        let output = try generate(Self.document(properties: """
                    owner: {anyOf: [{type: string}, {$ref: "#/components/schemas/Owner"}]}
            """, schemas: """
                Owner: {type: object, properties: {things: {type: array, items: {$ref: "#/components/schemas/Thing"}}, best: {$ref: "#/components/schemas/Thing"}}}
            """))
        #expect(output.warnings.isEmpty, "\(output.warnings)")
        #expect(output.source.contains("public indirect enum Owner2: Codable"))
        #expect(output.source.contains("public var best: Thing?"))
    }

    @Test func aOneOfWithADiscriminatorOverInlineSchemasIsTriedInOrder() throws {
        let output = try generate(Self.document(properties: """
                    shape:
                      oneOf: [{$ref: "#/components/schemas/Circle"}, {type: object, properties: {side: {type: number}}}]
                      discriminator: {propertyName: kind}
            """, schemas: """
                Circle: {type: object, properties: {radius: {type: number}}}
            """))
        #expect(warning(output, .note)?.pointer == "#/components/schemas/Thing/properties/shape/oneOf/1")
        #expect(output.source.contains("public enum Shape"))
    }

    @Test func anOperationTheKitCannotExpressIsSkipped() throws {
        let output = try generate(Self.document(properties: "        name: {type: string}", paths: """
              /search:
                get:
                  operationId: search
                  parameters: [{name: filter, in: query, schema: {$ref: "#/components/schemas/Thing"}}]
                  responses: {"204": {description: None.}}
            """))
        #expect(warning(output, .skippedOperation)?.message.hasPrefix("skipped operation search: unsupported construct: query parameter \"filter\"") == true)
        #expect(output.operationCount == 1)
        #expect(!output.source.contains("func search"))
    }

    @Test func streamingResponsesReturnStreamingRequests() throws {
        let output = try generate(Self.document(properties: "        name: {type: string}", paths: """
              /events:
                get:
                  operationId: watch
                  responses: {"200": {description: E., content: {text/event-stream: {schema: {$ref: "#/components/schemas/Thing"}}}}}
              /raw-events:
                get:
                  operationId: rawEvents
                  responses: {"200": {description: E., content: {text/event-stream: {}}}}
              /export:
                post:
                  operationId: export
                  responses: {"200": {description: L., content: {application/x-ndjson: {schema: {type: array, items: {$ref: "#/components/schemas/Thing"}}}}}}
              /lines:
                get:
                  operationId: lines
                  responses: {"200": {description: L., content: {application/jsonl: {}}}}
              /records:
                get:
                  operationId: records
                  responses: {"200": {description: R., content: {application/json-seq: {schema: {$ref: "#/components/schemas/Thing"}}}}}
            """))
        let source = output.source
        #expect(source.contains("public static func watch() -> StreamRequest<Thing>"))
        #expect(source.contains("parser: EventDataParser(parser(Thing.self)), reconnection: .eventSource)"))
        #expect(source.contains("public static func rawEvents() -> StreamRequest<ServerSentEvent>"))
        #expect(source.contains("public static func export() -> StreamRequest<Thing>"))
        #expect(source.contains("method: .post, headerFields: headerFields, parser: JSONLinesParser(parser(Thing.self)))"))
        #expect(source.contains("public static func lines() -> StreamRequest<JSON>"))
        #expect(source.contains(#"headerFields[.accept] = "application/jsonl, application/x-ndjson""#))
        #expect(!source.contains("headers["), "every header goes through the HTTPFields the request is made with")
        #expect(source.contains("parser: JSONSequenceParser(parser(Thing.self))"))
    }

    @Test func splitAcrossFilesKeepsEveryDeclarationOnce() throws {
        let text = Self.document(properties: "        name: {type: string}", paths: (1...20).map { index in
            """
              /items\(index):
                get:
                  operationId: item\(index)
                  responses: {"200": {description: I., content: {application/json: {schema: {type: object, properties: {id\(index): {type: string}}}}}}}
            """
        }.joined(separator: "\n"))
        let one = try generate(text)
        let four = try generate(text, files: 4)
        #expect(four.files.count == 4)
        #expect(four.files[0].contains("public enum T {"))
        #expect(four.files.dropFirst().allSatisfy { $0.contains("extension T {") })
        for index in 1...20 {
            #expect(four.source.components(separatedBy: "public static func item\(index)(").count == 2)
        }
        // The helpers the other files call are visible to them.
        #expect(four.files[0].contains("    static func parser<Model: Decodable & Sendable>("))
        #expect(one.source.contains("    private static func parser<Model: Decodable & Sendable>("))
    }

    @Test func schemasOpenAPIKitCannotReadAreReadAsJSON() throws {
        let output = try generate(Self.document(properties: """
                    odd: {type: string, minLength: many}
                    name: {type: string}
            """))
        #expect(warning(output, .unreadableSchema)?.line != nil)
        #expect(output.source.contains("public var odd: JSON?"))
        #expect(output.source.contains("public var name: String?"))
    }
}
