import Foundation

/// Fuzzer bytes read as a sequence of choices: a byte, a small number, a string of a given
/// length, the rest. Reading past the end gives zeros and empty strings, never a trap.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var offset = 0

    /// The input `data`.
    public init(_ data: Data) {
        bytes = [UInt8](data)
    }

    /// True when every byte has been read.
    public var isAtEnd: Bool { offset >= bytes.count }

    /// The next byte, or 0.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The next `count` bytes (fewer at the end).
    public mutating func bytes(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + max(0, count))
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    /// A string of up to `maxLength` bytes (its length chosen by the input), decoded as UTF-8
    /// with invalid bytes repaired.
    public mutating func string(maxLength: Int = 64) -> String {
        String(decoding: bytes(Int(byte()) % (maxLength + 1)), as: UTF8.self)
    }

    /// Everything not read yet.
    public mutating func rest() -> Data {
        Data(bytes(bytes.count - offset))
    }
}

/// A fuzz target's `main`: built by scripts/fuzz (`-sanitize=fuzzer -DNK_FUZZ`), libFuzzer's
/// driver calls `body` with each input it makes; in an ordinary build it replays the files named
/// by the arguments (see ``replayCorpus(_:_:)``).
public func fuzzMain(_ body: @escaping (Data) -> Void) {
    #if NK_FUZZ
    fuzzBody = body
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in
        fuzzBody?(Data(bytes: bytes, count: count))
        return 0
    })
    #else
    replayCorpus(Array(CommandLine.arguments.dropFirst()), body)
    #endif
}

#if NK_FUZZ
/// The target's body, for the C callback (which cannot capture it). Set once before the driver
/// starts and only read after, on the driver's one thread.
nonisolated(unsafe) private var fuzzBody: ((Data) -> Void)?

/// libFuzzer's driver for programs with their own `main` (SwiftPM names the executable's entry
/// point itself, so libFuzzer's `main` is not linked).
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
) -> Int32
#endif

/// Runs `body` on every file named by `arguments` (folders: every file in them), so the
/// committed corpus and every past crash are replayed by the tests. Prints how many inputs ran.
public func replayCorpus(_ arguments: [String], _ body: (Data) -> Void) {
    var count = 0
    for path in arguments {
        let url = URL(fileURLWithPath: path)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            print("replay: no such file or folder: \(path)")
            continue
        }
        let files = isFolder.boolValue
            ? (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? []
            : [url]
        for file in files.sorted(by: { $0.path < $1.path }) {
            guard let data = try? Data(contentsOf: file) else { continue }
            body(data)
            count += 1
        }
    }
    print("replayed \(count) inputs")
}

/// Stops the process with `message` when `condition` is false: a broken invariant is what the
/// fuzzer must report, as a crash with the input that caused it.
public func invariant(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        FileHandle.standardError.write(Data("invariant broken: \(message())\n".utf8))
        abort()
    }
}
