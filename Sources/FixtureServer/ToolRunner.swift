import Foundation

/// Runs a command-line tool found on PATH (reference decoders, gzip) and returns its exit
/// status, or -1 when it cannot start. For tests and benchmarks.
@discardableResult
public func runTool(_ arguments: [String]) -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    do {
        try process.run()
    } catch {
        return -1
    }
    process.waitUntilExit()
    return process.terminationStatus
}
