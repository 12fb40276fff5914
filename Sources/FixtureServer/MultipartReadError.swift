/// Why `MultipartReader` refused a body.
enum MultipartReadError: Error, CustomStringConvertible {
    /// multipart-kit's parser refused these bytes (or, for `NonASCIIFieldName`, would trap on them).
    case malformed(any Error)
    /// The body ended before its close delimiter.
    case incomplete
    /// multipart-kit did not do what the reader's model of it says: the reader is wrong.
    case outOfStep(String)

    var description: String {
        switch self {
        case .malformed(let error): "malformed multipart body: \(error)"
        case .incomplete: "the multipart body ended before its close delimiter"
        case .outOfStep(let what): "the multipart reader is out of step with multipart-kit: \(what)"
        }
    }
}

/// A header field name with a byte above 127, which no field name has (RFC 9110 tokens are ASCII).
struct NonASCIIFieldName: Error, CustomStringConvertible {
    var description: String { "a byte above 127 in a header field name" }
}
