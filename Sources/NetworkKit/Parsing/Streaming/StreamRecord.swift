import Foundation

/// What the parsers that hand a stream's records (lines, JSON texts) to a whole-body parser share.
enum StreamRecord {
    /// `error`, thrown by the parser of the record at `place` (`line 3`, `record 2`), saying where:
    /// a ``ParseError`` (bare or in ``NetworkError/parse(_:)``) gets `place` before its reason; any
    /// other ``NetworkError``, such as a business code, stays as it is; an error of another type
    /// becomes a ``ParseError`` of kind `custom` from `parser` that holds it.
    static func error(_ error: any Error, at place: String, parser: String) -> any Error {
        switch error {
        case var parseError as ParseError:
            parseError.reason = "\(place): \(parseError.reason)"
            return parseError
        case let networkError as NetworkError:
            guard case .parse(var parseError) = networkError else { return networkError }
            parseError.reason = "\(place): \(parseError.reason)"
            return NetworkError.parse(parseError)
        default:
            return ParseError(parser: parser, reason: "\(place): \(error)", kind: .custom, underlying: error)
        }
    }

    /// Whether every byte is JSON whitespace (space, tab, LF, CR): such a record holds no value.
    static func isBlank(_ bytes: UnsafeRawBufferPointer) -> Bool {
        !bytes.contains { !$0.isJSONWhitespace }
    }
}
