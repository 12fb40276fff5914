import Foundation

/// A request body made as it is sent: an asynchronous sequence of byte chunks, its length when
/// known, and whether it can be made again.
///
/// ```swift
/// // Sent once: a retry or a 307/308 redirect cannot send it again.
/// request.body = .stream(RequestBodyStream(frames, length: nil), contentType: "application/x-ndjson")
/// // Made again for each attempt: retries and redirects work as for any body.
/// request.body = .stream(RequestBodyStream(length: size) { export.chunks() }, contentType: "text/csv")
/// ```
///
/// What it guarantees:
/// - The NIO transport sends the chunks as the connection takes them: a body of unknown length
///   goes out with `Transfer-Encoding: chunked` on HTTP/1.1. URLSession cannot take a body from
///   an asynchronous sequence on Linux: ``URLSessionTransport`` writes the chunks to a temporary
///   file first, sends the file and removes it.
/// - A body made once is read at most once. A request that read some of it is not retried or
///   sent again, whatever its retry policy says (it fails with the attempt's own failure), and a
///   `307` or `308` asking for it again fails with ``NetworkError/requestBodyStream(_:)``
///   (``Failure/alreadySent``). A request that failed before the transport asked for any of it
///   can still be retried: on NIO, one whose connection failed before the head went out;
///   URLSession reads the whole body into its file before it connects.
/// - A declared length is checked: a sequence that ends short of it, or goes past it, fails the
///   request with ``Failure/lengthMismatch(declared:sent:)``, and no more is sent.
/// - An error the sequence throws fails the request with ``Failure/sequenceFailed(_:)``; the
///   task that reads it being cancelled fails it as ``NetworkError/cancelled``.
/// - Its bytes are never held by the kit beyond the chunk being sent (or the temporary file), so
///   a signer cannot read them (``OutgoingRequest/signingContent()`` throws) and neither the cache
///   nor a HAR recording keeps them.
public struct RequestBodyStream: Sendable, Hashable {
    /// Why a streamed request body failed.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// The sequence threw this error.
        case sequenceFailed(any Error)
        /// The sequence's bytes did not match the length it was declared with: `sent` is how many
        /// it had made when that was known (its end, or the first byte past `declared`).
        case lengthMismatch(declared: Int64, sent: Int64)
        /// The body can be made once and was already sent: a redirect or the transport asked for
        /// it again.
        case alreadySent

        /// One line fit for a log.
        public var description: String {
            switch self {
            case .sequenceFailed(let error):
                "the body's sequence threw \(error)"
            case .lengthMismatch(let declared, let sent):
                "the body's sequence made \(sent) bytes, its declared length is \(declared)"
            case .alreadySent:
                "the body can be sent once and was already sent: make it with RequestBodyStream(length:repeating:) to send it again"
            }
        }
    }

    /// The body's length in bytes when it was declared; nil when it is unknown.
    public let length: Int64?
    private let source: Source

    /// A body sent once, made of `chunks` (each a `Data`, `[UInt8]`, `ArraySlice<UInt8>`…), of
    /// `length` bytes when known.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, length: Int64? = nil)
    where Chunks.Element: DataProtocol {
        self.length = length
        source = Source(isRepeatable: false) { ChunkReader(chunks.makeAsyncIterator()) }
    }

    /// A body of `length` bytes when known, made anew by `makeChunks` each time it is sent (a
    /// retry, a redirect that keeps the body).
    public init<Chunks: AsyncSequence & Sendable>(length: Int64? = nil, repeating makeChunks: @escaping @Sendable () -> Chunks)
    where Chunks.Element: DataProtocol {
        self.length = length
        source = Source(isRepeatable: true) { ChunkReader(makeChunks().makeAsyncIterator()) }
    }

    /// Whether the body is made anew each time it is sent.
    public var isRepeatable: Bool { source.isRepeatable }

    /// Whether the body can be sent (again): it is made anew each time, or no one has read it yet.
    package var canBeSent: Bool { source.isRepeatable || !source.wasRead }

    /// A reader of the body from its first byte, for a transport to send: call it when the body
    /// is to go out (not before the connection asks for it, so that a request that failed first
    /// can still be retried), once per send.
    /// - Throws: ``NetworkError/requestBodyStream(_:)`` (``Failure/alreadySent``) when the body
    ///   can be made once and was read already.
    public func makeReader() throws(NetworkError) -> Reader {
        guard let chunks = source.makeChunks() else { throw .requestBodyStream(.alreadySent) }
        return Reader(chunks: chunks, declared: length)
    }

    /// Bodies are equal when they are the same stream (copies of one value).
    public static func == (lhs: RequestBodyStream, rhs: RequestBodyStream) -> Bool {
        lhs.source === rhs.source
    }

    /// Hashes the stream's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(source))
    }

    /// Reads a body's chunks in order for one send, checking them against the declared length.
    /// Used by one task at a time.
    public struct Reader {
        private let chunks: any ChunkReading
        /// The length the body was declared with.
        public let declared: Int64?
        /// Bytes handed out so far.
        public private(set) var sent: Int64 = 0
        private var ended = false

        fileprivate init(chunks: any ChunkReading, declared: Int64?) {
            self.chunks = chunks
            self.declared = declared
        }

        /// The next chunk (never empty), or nil at the end.
        /// - Throws: ``NetworkError/requestBodyStream(_:)`` when the sequence throws or its bytes
        ///   do not match the declared length; ``NetworkError/cancelled`` when the reading task is
        ///   cancelled.
        public mutating func next() async throws(NetworkError) -> Data? {
            guard !ended else { return nil }
            while true {
                let chunk: Data?
                do {
                    chunk = try await chunks.next()
                } catch {
                    ended = true
                    if let error = error as? NetworkError { throw error }
                    if error is CancellationError || Task.isCancelled { throw .cancelled }
                    throw .requestBodyStream(.sequenceFailed(error))
                }
                guard let chunk else {
                    ended = true
                    // A sequence that ends because its task was cancelled did not make the whole body.
                    if Task.isCancelled { throw .cancelled }
                    if let declared, sent != declared { throw .requestBodyStream(.lengthMismatch(declared: declared, sent: sent)) }
                    return nil
                }
                if chunk.isEmpty { continue }
                sent += Int64(chunk.count)
                if let declared, sent > declared {
                    ended = true
                    throw .requestBodyStream(.lengthMismatch(declared: declared, sent: sent))
                }
                return chunk
            }
        }
    }
}

/// The one object behind copies of a ``RequestBodyStream``: how to make its chunks, and whether
/// a body made once was read.
private final class Source: Sendable {
    let isRepeatable: Bool
    private let make: @Sendable () -> any ChunkReading
    /// Set when a body made once is read.
    private let read = Protected(false)

    init(isRepeatable: Bool, make: @escaping @Sendable () -> any ChunkReading) {
        self.isRepeatable = isRepeatable
        self.make = make
    }

    var wasRead: Bool { read.snapshot }

    /// The chunks from the first; nil for a body made once that was read already.
    func makeChunks() -> (any ChunkReading)? {
        if !isRepeatable {
            let first = read.withLock { read in
                defer { read = true }
                return !read
            }
            guard first else { return nil }
        }
        return make()
    }
}

/// A sequence's chunks as `Data`, whatever the sequence's type.
private protocol ChunkReading: AnyObject {
    func next() async throws -> Data?
}

/// The iterator of one sequence, read as `Data`.
private final class ChunkReader<Iterator: AsyncIteratorProtocol>: ChunkReading where Iterator.Element: DataProtocol {
    private var iterator: Iterator

    init(_ iterator: Iterator) {
        self.iterator = iterator
    }

    func next() async throws -> Data? {
        guard let element = try await iterator.next() else { return nil }
        return element as? Data ?? Data(element)
    }
}
