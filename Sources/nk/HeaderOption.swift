import ArgumentParser
import Foundation

/// `-H 'Name: value'`, as curl takes it.
enum HeaderOption {
    /// The header fields the options name; a field given twice keeps the last value.
    static func parse(_ options: [String]) throws -> [String: String] {
        var result: [String: String] = [:]
        for header in options {
            let parts = header.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { throw ValidationError("header \"\(header)\" is not 'Name: value'") }
            result[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return result
    }
}
