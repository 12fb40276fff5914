// Prints the public API in a folder of symbol graphs (swift-symbolgraph-extract's output), one
// line a declaration, sorted: `<kind> <path>: <declaration>`. The files of one module (its own
// and those of its extensions to other modules) go to one listing; scripts/api-baseline runs this.
//   swift scripts/lib/api-lines.swift FOLDER MODULE
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: api-lines.swift FOLDER MODULE\n".utf8))
    exit(2)
}
let folder = URL(fileURLWithPath: arguments[1])
let module = arguments[2]

/// The line of one symbol, or nil for one the listing leaves out.
func line(_ symbol: [String: Any]) -> String? {
    guard let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String,
          let path = symbol["pathComponents"] as? [String],
          let fragments = symbol["declarationFragments"] as? [[String: Any]] else { return nil }
    let declaration = fragments.compactMap { $0["spelling"] as? String }.joined()
        .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    return "\(kind.replacingOccurrences(of: "swift.", with: "")) \(path.joined(separator: ".")): \(declaration)"
}

var lines = Set<String>()
let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
for file in files where file.lastPathComponent == "\(module).symbols.json"
    || file.lastPathComponent.hasPrefix("\(module)@") {
    let graph = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
    for symbol in graph?["symbols"] as? [[String: Any]] ?? [] {
        if let line = line(symbol) { lines.insert(line) }
    }
}
print(lines.sorted().joined(separator: "\n"))
