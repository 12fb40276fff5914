import Foundation
import FixtureServer
@testable import NetworkKit
import Testing

/// Runs the `nk` binary that the test build made beside the test bundle.
enum CommandLine_ {
    /// What a run of `nk` printed, and its exit status.
    struct Run: Sendable {
        var status: Int32
        var output: String
        var errors: String
    }

    /// `nk` next to the test bundle (`swift build --build-tests` builds both), or nil.
    static var binary: URL? {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for directory in [bundle, bundle.deletingLastPathComponent()] {
            let candidate = directory.appendingPathComponent("nk")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Runs `nk arguments` with `environment` added to (or, with nil values, removed from) this
    /// process's, and `input` as its standard input (none by default), and waits for it. With
    /// `keepingInputOpen`, the standard input does not end after `input` while the tool runs (for
    /// a tool that stops at its end, such as `nk ws`). A missing binary is a recorded issue naming
    /// the fix.
    static func nk(_ arguments: [String], environment: [String: String?] = [:], input: String = "",
                   keepingInputOpen: Bool = false) async throws -> Run {
        guard let binary else {
            Issue.record("the nk binary is not beside the test bundle: build it with `swift build --enable-all-traits --build-tests`")
            throw CancellationError()
        }
        return try await run(binary, arguments, environment: environment, input: input, keepingInputOpen: keepingInputOpen)
    }

    /// Runs `executable` with `arguments` as `nk(_:environment:input:keepingInputOpen:)` runs `nk`.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String?] = [:], input: String = "",
                    keepingInputOpen: Bool = false) async throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        // Proxies of the machine must not steer the run.
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]
            where environment[name] == nil {
            merged[name] = nil
        }
        process.environment = merged
        let output = Pipe(), errors = Pipe(), standardInput = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = standardInput
        // Launched from the test's task, one launch at a time (see `launch`).
        try launch(process)
        // Small enough for the pipe's buffer: written whole, then closed, so the tool sees its end.
        standardInput.fileHandleForWriting.write(Data(input.utf8))
        if !keepingInputOpen { try? standardInput.fileHandleForWriting.close() }
        // Blocking reads and the wait run on threads of their own: on the cooperative pool, or
        // on Dispatch's global queues (as wide as the cores, and under the kit's pipeline
        // queues), they would starve the in-process servers and services the test relies on.
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let errorData = Protected(Data())
                let errorsRead = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    let data = errors.fileHandleForReading.readDataToEndOfFile()
                    errorData.withLock { $0 = data }
                    errorsRead.signal()
                }
                let outputData = output.fileHandleForReading.readDataToEndOfFile()
                errorsRead.wait()
                process.waitUntilExit()
                try? standardInput.fileHandleForWriting.close()
                continuation.resume(returning: Run(status: process.terminationStatus,
                                                   output: String(decoding: outputData, as: UTF8.self),
                                                   errors: String(decoding: errorData.snapshot, as: UTF8.self)))
            }
        }
    }

    /// Runs `nk arguments`, reads its first line of output, notes whether it was still running
    /// then, and stops it. For commands that write as things arrive.
    static func firstLine(of arguments: [String]) async throws -> (line: String, wasRunning: Bool) {
        guard let binary else {
            Issue.record("the nk binary is not beside the test bundle: build it with `swift build --enable-all-traits --build-tests`")
            throw CancellationError()
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try launch(process)
        // The blocking reads run on a thread of their own, as in `nk(_:environment:)`.
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var line = Data()
                while !line.contains(UInt8(ascii: "\n")) {
                    let piece = output.fileHandleForReading.availableData
                    if piece.isEmpty { break }
                    line.append(piece)
                }
                let wasRunning = process.isRunning
                process.terminate()
                process.waitUntilExit()
                continuation.resume(returning: (String(decoding: line, as: UTF8.self), wasRunning))
            }
        }
    }
}
