#if CodeGeneration
import Foundation
import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat
import Yams

/// Reads an OpenAPI 3.0 or 3.1 document, YAML or JSON, with OpenAPIKit (3.0 documents are
/// converted to 3.1 by OpenAPIKitCompat), so the generator sees one model.
enum DocumentLoader {
    /// The document in `text`; `file` names it in errors. JSON is read as the YAML it also is,
    /// with Yams, which keeps the document's order of paths and properties (Foundation's JSON
    /// decoder does not), so the generated code follows the document.
    static func load(_ text: String, file: String) throws -> OpenAPIKit.OpenAPI.Document {
        let isJSON = file.lowercased().hasSuffix(".json")
        let locator = SourceLocator(text: text)
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try YAMLDecoder().decode(type, from: text)
        }
        let version: String
        do {
            version = try decode(VersionField.self).openapi
        } catch let error as DecodingError where YAMLErrors.yamlError(in: error) == nil {
            let (path, message) = DecodingErrors.describe(error)
            let pointer = JSONPointer(path)
            throw GeneratorError(file: file, line: locator.line(of: pointer), pointer: pointer.description,
                                 message: "not an OpenAPI document: \(message)")
        } catch {
            let described = YAMLErrors.summary(of: error)
            throw GeneratorError(file: file, line: YAMLErrors.line(of: error),
                                 message: "not valid \(isJSON ? "JSON" : "YAML"): \(described)")
        }
        do {
            if version.hasPrefix("3.0.") {
                return try decode(OpenAPIKit30.OpenAPI.Document.self).convert(to: .v3_1_0)
            }
            guard version.hasPrefix("3.1.") || version.hasPrefix("3.2.") else {
                throw GeneratorError(file: file, line: locator.line(of: JSONPointer(["openapi"])), pointer: "#/openapi",
                                     message: "unsupported OpenAPI version \(version) (3.0.x and 3.1.x are supported)")
            }
            return try decode(OpenAPIKit.OpenAPI.Document.self)
        } catch let error as GeneratorError {
            throw error
        } catch {
            let described = OpenAPIKit.OpenAPI.Error(from: error)
            let pointer = JSONPointer(described.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue })
            throw GeneratorError(file: file, line: locator.line(of: pointer),
                                 pointer: pointer.keys.isEmpty ? nil : pointer.description,
                                 message: "invalid OpenAPI document: \(described.localizedDescription)")
        }
    }

    private struct VersionField: Decodable {
        var openapi: String
    }
}
#endif
