import Foundation

/// Turns a finished `Response` into a value.
///
/// Parsers run in the request's pipeline, never on the main actor, so they may do real work
/// (JSON, model conversion, image decoding): a lightweight one with a small body where the
/// pipeline runs, any other on the shared parsing queue. A parser throws
/// `ParseError` (or any error, which the service wraps) on input it cannot handle.
///
/// Writing one takes a few lines:
/// ```swift
/// struct LineCountParser: ResponseParser {
///     func parse(_ response: Response) throws -> Int {
///         response.data.split(separator: UInt8(ascii: "\n")).count
///     }
/// }
/// ```
public protocol ResponseParser<Output>: Sendable {
    /// The value this parser produces.
    associatedtype Output: Sendable
    /// Parses a response whose status the service already accepted.
    func parse(_ response: Response) throws -> Output

    /// True when parsing a small body takes microseconds (no image decoding, no I/O): such a
    /// parser runs where the pipeline runs instead of hopping to the parsing queue.
    /// False unless a parser says otherwise; see `ParsingQueue`.
    var isLightweight: Bool { get }
}

extension ResponseParser {
    /// Parsers are not lightweight unless they say so.
    public var isLightweight: Bool { false }

    /// Stage 6 of the pipeline, for it and for `Service.cachedValue(for:)`: parses the response
    /// (whose body arrived inflated, if it was content-encoded). A failure is a `NetworkError`
    /// naming this parser.
    func parseResult(_ response: Response) -> Result<Output, NetworkError> {
        do {
            return .success(try parse(response))
        } catch {
            return .failure(NetworkError.wrap(error, parser: String(describing: type(of: self))))
        }
    }

    /// `parseResult` with the value's type erased, for the pipeline (the same for every output type).
    func parseAnyResult(_ response: Response) -> AnyResult {
        parseResult(response).map { $0 }
    }
}

/// A parser built from a closure, for one-off parsing and for `map`.
public struct ClosureParser<Output: Sendable>: ResponseParser {
    private let body: @Sendable (Response) throws -> Output

    /// Wraps `body` as a parser.
    public init(_ body: @escaping @Sendable (Response) throws -> Output) {
        self.body = body
    }

    /// Runs the closure.
    public func parse(_ response: Response) throws -> Output {
        try body(response)
    }
}

extension ResponseParser {
    /// A parser that runs this one, then transforms its output (where this one parses).
    public func map<NewOutput: Sendable>(
        _ transform: @escaping @Sendable (Output) throws -> NewOutput
    ) -> ClosureParser<NewOutput> {
        ClosureParser { response in try transform(self.parse(response)) }
    }
}

/// Turns a parsed value into what a screen needs (AIFNetworking's reformers): one object per
/// kind of screen, reused across requests, run on the parsing queue.
///
/// ```swift
/// struct FeedRowsReformer: Reformer {
///     func reform(_ feed: [Entrance]) -> [String] { feed.map(\.name) }
/// }
/// Request(path: "/feed", parser: ModelParser([Entrance].self).reformed(by: FeedRowsReformer()))
/// ```
public protocol Reformer<Input, Output>: Sendable {
    /// What the parser produced.
    associatedtype Input: Sendable
    /// What the screen gets.
    associatedtype Output: Sendable
    /// Reforms `input`; throwing fails the request with a parse error.
    func reform(_ input: Input) throws -> Output
}

extension ResponseParser {
    /// A parser that runs this one, then `reformer` on its output.
    public func reformed<R: Reformer>(by reformer: R) -> ClosureParser<R.Output> where R.Input == Output {
        map { try reformer.reform($0) }
    }
}
