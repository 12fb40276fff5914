import Foundation

/// The process's resident set size, from /proc (nil where there is none), for the memory
/// checks of tests and benchmarks.
public enum ResidentMemory {
    /// Bytes resident now.
    public static var current: Int? { read("VmRSS:", of: "self") }

    /// Bytes resident now in the process `processID` (a child the caller started).
    public static func of(processID: Int32) -> Int? { read("VmRSS:", of: "\(processID)") }

    /// The most bytes resident at once since the process started or since `resetPeak()`.
    public static var peak: Int? { read("VmHWM:", of: "self") }

    /// Starts `peak` again from the current size (Linux 4.0+: writes 5 to /proc/self/clear_refs).
    /// False where that is not possible; `peak` then still counts from the process's start.
    @discardableResult
    public static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    private static func read(_ field: String, of process: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }
}
