import Foundation
import NetworkKit
import NetworkKitCodegen
import Testing

/// Real public documents at fixed versions (Examples/third-party/README.md says where each comes
/// from): what the generator makes of them. The package under Examples/ compiles the same output
/// and runs some of its requests against the fixture server.
@Suite struct RealDocumentTests {
    static let examples = Files.folder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples")

    func generate(_ path: String, files: Int = 1) throws -> OpenAPIGenerator.Output {
        try OpenAPIGenerator.generate(input: Self.examples.appendingPathComponent(path), config: nil, files: files)
    }

    /// Apache Airflow 3.3.2's REST API: OpenAPI 3.1 as FastAPI writes it (`anyOf` with `null`,
    /// untyped path parameters, answers offered as JSON and as JSON Lines).
    @Test func airflow() throws {
        let output = try generate("Airflow/openapi.yaml", files: 4)
        #expect(output.operationCount == 128)
        #expect(output.streamVariantCount == 2)
        #expect(output.warnings.isEmpty, "\(output.warnings.map(\.description))")
        #expect(output.files.count == 4)
        #expect(output.source.contains("public static func getLogStream("))
        #expect(output.source.contains("-> StreamRequest<JSON>"))
    }

    /// Datadog's API v2, datadog-api-client 2.62.0: OpenAPI 3.0, 8.9 MB, 1,661 operations, 8,745
    /// component schemas; five integer bounds above `Int64` (unsigned 64-bit maxima). Not under a
    /// sanitizer (`NK_SANITIZER`): the generator runs on one thread, and reading 8.9 MB there
    /// takes minutes.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["NK_SANITIZER"] == nil))
    func datadog() throws {
        // Committed gzipped; unpacked with the kit's own inflater.
        let packed = try Data(contentsOf: Self.examples.appendingPathComponent("third-party/datadog/datadog-v2-openapi.yaml.gz"))
        let text = String(decoding: try Decompressor.inflate(packed, coding: .gzip, limit: 64 << 20), as: UTF8.self)
        let output = try OpenAPIGenerator.generate(document: text, fileName: "openapi.yaml", files: 32)
        #expect(output.operationCount == 1_661)
        let kinds = Dictionary(grouping: output.warnings, by: \.kind).mapValues(\.count)
        #expect(kinds == [.integerBound: 5], "\(output.warnings.prefix(10).map(\.description))")
        #expect(output.files.count == 32)
        #expect(output.files.allSatisfy { !$0.isEmpty })
    }
}
