import Foundation

/// The process's resident set size, from /proc (nil where there is none), for the memory
/// checks of tests and benchmarks.
public enum ResidentMemory {
    /// Bytes resident now.
    public static var current: Int? { read("VmRSS:") }

    private static func read(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }
}
