import Foundation
import PackagePlugin

/// Generates NetworkKit requests and models from the `openapi.yaml` or `openapi.json` of a
/// target, at build time, with `nk-openapi-gen`. The command's inputs are the document and the
/// optional `networkkit-openapi.yaml` (`.yml`, `.json`), so it runs again only when they change.
@main
struct NetworkKitOpenAPIPlugin: BuildToolPlugin {
    static let documentNames = ["openapi.yaml", "openapi.yml", "openapi.json"]
    static let configNames = ["networkkit-openapi.yaml", "networkkit-openapi.yml", "networkkit-openapi.json"]

    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let files = target.sourceFiles.map(\.url)
        let documents = files.filter { Self.documentNames.contains($0.lastPathComponent) }
        let configs = files.filter { Self.configNames.contains($0.lastPathComponent) }
        guard let document = documents.first else {
            Diagnostics.error("target \(target.name) applies NetworkKitOpenAPI but has no \(Self.documentNames.joined(separator: ", ")) file")
            return []
        }
        guard documents.count == 1, configs.count <= 1 else {
            Diagnostics.error("target \(target.name) has more than one OpenAPI document or configuration: \((documents + configs).map(\.lastPathComponent))")
            return []
        }
        // Large documents are split across several files, about one per 100 KB of document, so
        // the compiler builds them in parallel and rebuilds less.
        let size = (try? FileManager.default.attributesOfItem(atPath: document.path)[.size] as? Int) ?? 0
        let count = min(32, max(1, size / 100_000))
        let outputs = (1...count).map { index in
            context.pluginWorkDirectoryURL.appending(path: "\(target.name).openapi\(index == 1 ? "" : ".\(index)").swift")
        }
        var arguments = ["--input", document.path]
        for output in outputs { arguments += ["--output", output.path] }
        if let config = configs.first { arguments += ["--config", config.path] }
        return [
            .buildCommand(
                displayName: "Generating NetworkKit requests from \(document.lastPathComponent) for \(target.name)",
                executable: try context.tool(named: "nk-openapi-gen").url,
                arguments: arguments,
                inputFiles: [document] + configs,
                outputFiles: outputs
            ),
        ]
    }
}
