import ArgumentParser
import Foundation
import NetworkKit

/// `-H 'Name: value'`, as curl takes it.
enum HeaderOption {
    /// The header fields the options name, in their order; a name given twice is sent twice,
    /// as curl sends it.
    static func parse(_ options: [String]) throws -> HTTPFields {
        var result = HTTPFields()
        for header in options {
            let parts = header.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { throw ValidationError("header \"\(header)\" is not 'Name: value'") }
            let rawName = parts[0].trimmingCharacters(in: .whitespaces)
            guard let name = HTTPField.Name(rawName) else {
                throw ValidationError("header \"\(header)\": \"\(rawName)\" is not a valid field name")
            }
            result.append(HTTPField(name: name, value: parts[1].trimmingCharacters(in: .whitespaces)))
        }
        return result
    }
}
