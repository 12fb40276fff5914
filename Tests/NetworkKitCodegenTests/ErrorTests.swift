import Foundation
import NetworkKitCodegen
import Testing

/// Documents the generator cannot turn into correct Swift: each is an error naming the file, the
/// line and the JSON pointer, never broken Swift.
@Suite struct ErrorTests {
    /// A document of `paths` and `components` (YAML, indented as under the top level).
    static func document(paths: String, components: String = "") -> String {
        """
        openapi: 3.1.0
        info: {title: T, version: "1"}
        paths:
        \(paths)
        components:
          schemas:
            Pet: {type: object, properties: {name: {type: string}}}
        \(components)
        """
    }

    /// The error generating `text` throws.
    func error(_ text: String, config: GeneratorConfig = GeneratorConfig(), file: String = "openapi.yaml") -> GeneratorError? {
        do {
            let output = try OpenAPIGenerator.generate(document: text, fileName: file, config: config)
            Issue.record("expected an error, generated:\n\(output.source.prefix(300))")
            return nil
        } catch let error as GeneratorError {
            return error
        } catch {
            Issue.record("expected a GeneratorError, got \(error)")
            return nil
        }
    }

    @Test func unresolvedReference() {
        let text = Self.document(paths: """
              /pets:
                get:
                  responses:
                    "200":
                      description: Pets.
                      content:
                        application/json:
                          schema: {$ref: "#/components/schemas/Pett"}
            """)
        let error = error(text)
        #expect(error?.message == "unresolved $ref #/components/schemas/Pett: no such schema in components/schemas")
        #expect(error?.pointer == "#/paths/~1pets/get/responses/200/content/application~1json/schema")
        #expect(error?.line == 11)
        #expect(error?.description.hasPrefix("openapi.yaml:11: error: unresolved $ref") == true)
    }

    @Test func unresolvedParameterReference() {
        let error = error(Self.document(paths: """
              /pets:
                get:
                  parameters: [{$ref: "#/components/parameters/Nope"}]
                  responses: {"204": {description: None.}}
            """))
        #expect(error?.message == "unresolved $ref #/components/parameters/Nope")
        #expect(error?.pointer == "#/paths/~1pets/get/parameters/0")
        #expect(error?.line == 6)
    }

    @Test func duplicateOperationID() {
        let error = error(Self.document(paths: """
              /pets:
                get:
                  operationId: listPets
                  responses: {"204": {description: None.}}
              /animals:
                get:
                  operationId: listPets
                  responses: {"204": {description: None.}}
            """))
        #expect(error?.message == "duplicate operationId \"listPets\" (first used at #/paths/~1pets/get)")
        #expect(error?.pointer == "#/paths/~1animals/get/operationId")
        #expect(error?.line == 10)
    }

    @Test func placeholderWithoutParameter() {
        let error = error(Self.document(paths: """
              /pets/{petId}:
                get:
                  operationId: getPet
                  responses: {"204": {description: None.}}
            """))
        #expect(error?.message == "the path placeholder {petId} of /pets/{petId} has no path parameter named \"petId\"")
        #expect(error?.pointer == "#/paths/~1pets~1{petId}/get")
        #expect(error?.line == 5)
    }

    @Test func pathParameterWithoutPlaceholder() {
        let error = error(Self.document(paths: """
              /pets:
                get:
                  parameters: [{name: id, in: path, required: true, schema: {type: string}}]
                  responses: {"204": {description: None.}}
            """))
        #expect(error?.message == "path parameter \"id\" has no placeholder {id} in /pets")
        #expect(error?.line == 6)
    }

    @Test func brokenBeyondMendingFailsAtItsLine() {
        let invalid = error(Self.document(paths: """
              /pets:
                get:
                  responses: 7
            """))
        #expect(invalid?.message.hasPrefix("invalid OpenAPI document") == true)
        #expect(invalid?.line == 6)
    }

    @Test func envelopePathMissingFromTheResponse() {
        var config = GeneratorConfig()
        config.envelope = .init(codeKeyPath: "code", okValues: [.int(0)], contentKeyPath: "data")
        let error = error(Self.document(paths: """
              /pets:
                get:
                  operationId: listPets
                  responses:
                    "200":
                      description: Pets.
                      content:
                        application/json:
                          schema: {$ref: "#/components/schemas/Pet"}
            """), config: config)
        #expect(error?.message == "the response schema of listPets has no property \"data\" on the envelope's content key path data")
        #expect(error?.pointer == "#/paths/~1pets/get/responses/200/content/application~1json/schema")
    }

    @Test func notOpenAPIOrNotYAML() {
        let version = error("openapi: 2.0\ninfo: {title: T, version: \"1\"}\npaths: {}\n")
        #expect(version?.message == "unsupported OpenAPI version 2.0 (3.0.x and 3.1.x are supported)")
        #expect(version?.line == 1)

        let yaml = error("openapi: 3.1.0\ninfo: {title: T\npaths: {}\n")
        #expect(yaml?.message.hasPrefix("not valid YAML") == true)
        #expect(yaml?.line != nil)

        let invalid = error("openapi: 3.1.0\ninfo: {title: T, version: \"1\"}\npaths:\n  /pets:\n    get:\n      responses: 7\n")
        #expect(invalid?.message.hasPrefix("invalid OpenAPI document") == true)
        #expect(invalid?.line == 6)
    }

    @Test func configurationErrors() throws {
        #expect(throws: GeneratorError.self) { try GeneratorConfig.parse("name: X\ndownload: [a]\n", file: "c.yaml") }
        // The old spelling of the check is an unknown key, at the envelope and in an operation.
        for (text, line, key) in [("name: X\nenvelope:\n  checkKeyPath: code\n", 3, "checkKeyPath"),
                                  ("operations:\n  feed:\n    okValue: 1\n", 3, "okValue")] {
            let error = #expect(throws: GeneratorError.self) { try GeneratorConfig.parse(text, file: "c.yaml") }
            #expect(error?.line == line)
            #expect(error?.message.contains("unknown key \"\(key)\"") == true, "\(error?.message ?? "")")
        }
        var orphan = GeneratorConfig()
        orphan.envelope = .init(okValues: [.string("ok")])
        let withoutCode = error(Self.document(paths: """
              /pets:
                get:
                  operationId: listPets
                  responses:
                    "200": {description: Pets.}
            """), config: orphan)
        #expect(withoutCode?.message == "the configuration's envelope for \"listPets\" gives okValues or messageKeyPaths but no codeKeyPath to check them at")
        var config = GeneratorConfig()
        config.downloads = ["nope"]
        let unknown = error(Self.document(paths: "  {}"), config: config)
        #expect(unknown?.message == "the configuration lists download \"nope\", which is no operationId of the document")
    }

    @Test func configurationReadsEverySetting() throws {
        let config = try GeneratorConfig.parse("""
            name: Shop
            access: internal
            envelope: {codeKeyPath: status, okValues: [ok, 2], messageKeyPaths: [error, detail], contentKeyPath: result}
            downloads: [report]
            cache: {list: 60}
            operations:
              health: false
              feed: {contentKeyPath: result/items, okValues: [1]}
            """, file: "c.yaml")
        #expect(config.name == "Shop" && config.access == "internal")
        #expect(config.envelope == .init(codeKeyPath: "status", okValues: [.string("ok"), .int(2)],
                                         messageKeyPaths: ["error", "detail"], contentKeyPath: "result"))
        #expect(config.downloads == ["report"] && config.cache == ["list": 60])
        #expect(config.operations["health"]?.usesEnvelope == false)
        #expect(config.operations["feed"]?.envelope == .init(okValues: [.int(1)], contentKeyPath: "result/items"))
    }
}
