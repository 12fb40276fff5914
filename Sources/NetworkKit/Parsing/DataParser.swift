import Foundation

/// Returns the body as it came: the "no parser" choice.
public struct DataParser: ResponseParser {
    /// Creates the parser.
    public init() {}

    /// Light: a small body parses in microseconds.
    public var isLightweight: Bool { true }

    /// The raw body.
    public func parse(_ response: Response) throws -> Data {
        response.data
    }
}
