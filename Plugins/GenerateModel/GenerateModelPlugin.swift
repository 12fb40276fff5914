import Foundation
import PackagePlugin

/// `swift package generate-model --input sample.json --name User [--key-path a/b] [--output DIR]`:
/// writes `Codable` structs inferred from a sample response, with `nk-model-gen`. Relative paths
/// are taken from the package's folder; the output folder defaults to it.
@main
struct GenerateModelPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let root = context.package.directoryURL
        var forwarded: [String] = []
        var hasOutput = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            forwarded.append(argument)
            if ["--input", "--output"].contains(argument), index + 1 < arguments.count {
                let value = arguments[index + 1]
                forwarded.append(value.hasPrefix("/") ? value : root.appending(path: value).path)
                hasOutput = hasOutput || argument == "--output"
                index += 2
                continue
            }
            index += 1
        }
        if !hasOutput { forwarded += ["--output", root.path] }

        let process = Process()
        process.executableURL = try context.tool(named: "nk-model-gen").url
        process.arguments = forwarded
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            Diagnostics.error("nk-model-gen failed (exit status \(process.terminationStatus))")
            return
        }
    }
}
