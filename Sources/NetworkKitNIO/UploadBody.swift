#if NIO
import Foundation
import NetworkKit
import NIOConcurrencyHelpers
import NIOCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request body for the NIO transport: bytes in memory or a file streamed from disk, in 64 KiB
/// pieces, or the chunks of a ``RequestBodyStream`` as it makes them; sent piece by piece,
/// reporting upload progress as the client takes each piece.
struct UploadBody: Sendable {
    static let pieceSize = 64 * 1024

    private let reader: UploadChunks.Reader
    /// The body's length in bytes; nil for a stream of unknown length (sent chunked on HTTP/1.1).
    let length: Int64?
    /// Set once the client asks for the first piece, which it does only after it wrote the
    /// request's head. Made only for a request with a body.
    private let began: NIOLockedValueBox<Bool>

    /// Whether the client asked for any of the body: false means it never wrote the request's head.
    var hasBegun: Bool { began.withLockedValue { $0 } }

    /// The upload of `body`; nil when there is nothing to send.
    init?(_ body: OutgoingRequest.Body) {
        switch body {
        case .file(let file):
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
            reader = .pieces(.file(file))
            length = size ?? 0
        case .data(let data) where !data.isEmpty:
            reader = .pieces(.data(data))
            length = Int64(data.count)
        case .stream(let stream):
            reader = .stream(stream)
            length = stream.length
        case .data, .none:
            return nil
        }
        began = NIOLockedValueBox(false)
    }

    /// The body as a sequence of pieces that reports to `events` how much the client has taken.
    func chunks(reportingTo events: any TransportEvents) -> UploadChunks {
        UploadChunks(reader: reader, total: length, events: events, began: began)
    }
}

/// An upload body's pieces, read when the client asks for the next one.
struct UploadChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    /// Where the pieces come from.
    enum Reader: Sendable {
        /// Bytes in memory or a file, read in pieces of `UploadBody.pieceSize`.
        case pieces(PieceReader.Contents)
        /// A streamed body's chunks, as it makes them.
        case stream(RequestBodyStream)
    }

    let reader: Reader
    let total: Int64?
    let events: any TransportEvents
    /// Set when the first piece is asked for.
    let began: NIOLockedValueBox<Bool>

    func makeAsyncIterator() -> Iterator {
        began.withLockedValue { $0 = true }
        return Iterator(reader: reader, total: total, events: events)
    }

    /// Hands out the pieces; asking for the next one means the previous ones were taken.
    struct Iterator: AsyncIteratorProtocol {
        /// A body in memory or on disk, read in pieces.
        private let pieces: PieceReader?
        /// A streamed body, read when the first piece is asked for.
        private let stream: RequestBodyStream?
        private var streamReader: RequestBodyStream.Reader?
        let total: Int64?
        let events: any TransportEvents
        var sent: Int64 = 0
        var finished = false

        init(reader: Reader, total: Int64?, events: any TransportEvents) {
            switch reader {
            case .pieces(let contents): (pieces, stream) = (PieceReader(contents), nil)
            case .stream(let body): (pieces, stream) = (nil, body)
            }
            self.total = total
            self.events = events
        }

        /// The next piece.
        /// - Throws: the file's ``TransportError``, or the stream's ``NetworkError`` (which the
        ///   transport reports as it is).
        mutating func next() async throws -> ByteBuffer? {
            guard !finished else { return nil }
            if sent > 0 {
                events.transportDidSend(bytes: sent, of: total)
            }
            guard let piece = try await nextPiece() else {
                finished = true
                return nil
            }
            sent += Int64(piece.readableBytes)
            return piece
        }

        private mutating func nextPiece() async throws -> ByteBuffer? {
            if let pieces { return try pieces.next() }
            guard let stream else { return nil }
            var reader = try streamReader ?? stream.makeReader()
            defer { streamReader = reader }
            return try await reader.next().map { ByteBuffer(bytes: $0) }
        }
    }
}

/// Reads a body's pieces: slices of a `Data`, or `read(2)`s of a file it opens on first use
/// and closes at the end or when freed.
final class PieceReader {
    /// What the pieces are read from.
    enum Contents: Sendable {
        case data(Data)
        case file(URL)
    }

    private let reader: Contents
    private var offset = 0
    private var descriptor: Int32 = -1
    private var done = false

    init(_ reader: Contents) {
        self.reader = reader
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The next piece, or nil at the end.
    func next() throws -> ByteBuffer? {
        guard !done else { return nil }
        switch reader {
        case .data(let data):
            guard offset < data.count else { return finish() }
            let end = min(offset + UploadBody.pieceSize, data.count)
            let start = data.startIndex + offset
            offset = end
            return ByteBuffer(bytes: data[start..<(data.startIndex + end)])
        case .file(let url):
            if descriptor < 0 {
                descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else {
                    throw TransportError(.fileDoesNotExist, detail: "cannot open \(url.path)")
                }
            }
            var buffer = ByteBufferAllocator().buffer(capacity: UploadBody.pieceSize)
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: UploadBody.pieceSize) { bytes in
                let count = read(descriptor, bytes.baseAddress, bytes.count)
                guard count >= 0 else {
                    throw TransportError(.cannotOpenFile, detail: "cannot read \(url.path)")
                }
                return count
            }
            return count == 0 ? finish() : buffer
        }
    }

    private func finish() -> ByteBuffer? {
        done = true
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        return nil
    }
}
#endif
