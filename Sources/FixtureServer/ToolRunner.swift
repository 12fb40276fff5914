import Foundation

/// Runs a command-line tool found on PATH (reference decoders, gzip) and returns its exit
/// status, or -1 when it cannot start. For tests and benchmarks.
@discardableResult
public func runTool(_ arguments: [String]) -> Int32 {
    let process = toolProcess(arguments)
    do {
        try launch(process)
    } catch {
        return -1
    }
    process.waitUntilExit()
    return process.terminationStatus
}

/// Runs a tool found on PATH and returns what it wrote to standard output.
/// - Throws: when the tool cannot start, or `ToolFailure` when it exits non-zero.
@discardableResult
public func toolOutput(_ arguments: [String]) throws -> String {
    let process = toolProcess(arguments)
    let output = Pipe()
    process.standardOutput = output
    try launch(process)
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw ToolFailure(tool: arguments.first ?? "", status: process.terminationStatus)
    }
    return String(decoding: data, as: UTF8.self)
}

/// Runs a tool found on PATH and returns what it wrote to standard output, like the blocking
/// `toolOutput(_:)`, with the blocking read and wait on a thread of its own: a tool that talks to
/// a server in this process must not hold one of the few threads of Swift's cooperative pool,
/// which that server's handlers need.
/// - Throws: when the tool cannot start, or `ToolFailure` when it exits non-zero.
@discardableResult
public func toolOutput(_ arguments: [String]) async throws -> String {
    let process = toolProcess(arguments)
    let output = Pipe()
    process.standardOutput = output
    try launch(process)
    let data = await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            continuation.resume(returning: data)
        }
    }
    guard process.terminationStatus == 0 else {
        throw ToolFailure(tool: arguments.first ?? "", status: process.terminationStatus)
    }
    return String(decoding: data, as: UTF8.self)
}

/// Starts `process`, one launch at a time in this process: concurrent `Process.run()` calls
/// from several threads crashed Foundation on Linux (in a memcpy inside `run()`).
public func launch(_ process: Process) throws {
    try launches.withLock { try process.run() }
}

private let launches = NSLock()

/// A tool that exited with a status other than 0.
public struct ToolFailure: Error, CustomStringConvertible {
    /// The tool's name.
    public let tool: String
    /// Its exit status.
    public let status: Int32

    /// "`tool` exited with `status`".
    public var description: String { "\(tool) exited with \(status)" }
}

/// `arguments` run through `/usr/bin/env`, so the tool is looked up on PATH.
private func toolProcess(_ arguments: [String]) -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    return process
}

extension Duration {
    /// The duration in milliseconds, for reports of the tests, the demo and the benchmarks.
    public var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}

/// An executable SwiftPM built with the running tests (a code generator, a fuzz replayer): next
/// to the test bundle, else in `packageRoot/.build/debug`. Also returns every place looked in,
/// for the message of a test that finds none.
public func builtExecutable(_ name: String, packageRoot: URL) -> (url: URL?, searched: [URL]) {
    let folders = [Bundle.main.executableURL?.deletingLastPathComponent()]
        + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        + [packageRoot.appendingPathComponent(".build/debug")]
    let candidates = folders.compactMap { $0?.appendingPathComponent(name) }
    return (candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }, candidates)
}
