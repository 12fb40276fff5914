import AsyncHTTPClient
import Foundation
import NetworkKit
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request body for the NIO transport: the request's `httpBody`, or a file streamed from disk;
/// either way written in 64 KiB pieces, each once the one before was written, so upload
/// progress moves piece by piece and a file of any size costs one piece of memory.
struct UploadBody: Sendable {
    static let pieceSize = 64 * 1024

    private let source: PieceReader.Source
    /// The body's length in bytes.
    let length: Int64

    /// The body of `request` (`file` when given); nil when it has none.
    init?(request: URLRequest, file: URL?) {
        if let file {
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
            source = .file(file)
            length = size ?? 0
        } else if let data = request.httpBody, !data.isEmpty {
            source = .data(data)
            length = Int64(data.count)
        } else {
            return nil
        }
    }

    /// The body as AsyncHTTPClient streams it. A file's pieces are read on NIO's thread pool,
    /// never on an event loop; `eventLoop` carries the futures between reads and writes.
    func clientBody(eventLoop: any EventLoop) -> HTTPClient.Body {
        let source = self.source
        return .stream(contentLength: length) { writer in
            Self.write(PieceReader(source), to: writer, on: eventLoop)
        }
    }

    /// Reads the next piece, writes it, and goes on once it is written.
    private static func write(_ pieces: PieceReader, to writer: HTTPClient.Body.StreamWriter,
                              on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        pieces.next(on: eventLoop).flatMap { piece in
            guard let piece else { return eventLoop.makeSucceededVoidFuture() }
            return writer.write(.byteBuffer(piece)).flatMap { write(pieces, to: writer, on: eventLoop) }
        }
    }
}

/// Reads a body's pieces: slices of a `Data`, or `read(2)`s of a file it opens on first use
/// and closes at the end or when freed.
final class PieceReader: Sendable {
    /// Where the pieces come from.
    enum Source: Sendable {
        case data(Data)
        case file(URL)
    }

    private struct Position {
        var offset = 0
        var descriptor: Int32 = -1
        var done = false
    }

    private let source: Source
    /// One read at a time: the next starts once the previous piece was written.
    private let position = NIOLockedValueBox(Position())

    init(_ source: Source) {
        self.source = source
    }

    deinit {
        position.withLockedValue { if $0.descriptor >= 0 { close($0.descriptor) } }
    }

    /// The next piece, or nil at the end: a slice at once, a file's piece from the thread pool.
    func next(on eventLoop: any EventLoop) -> EventLoopFuture<ByteBuffer?> {
        switch source {
        case .data(let data):
            return eventLoop.makeSucceededFuture(slice(of: data))
        case .file(let url):
            return NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) { try self.read(url) }
        }
    }

    private func slice(of data: Data) -> ByteBuffer? {
        position.withLockedValue { position in
            guard position.offset < data.count else { return nil }
            let end = min(position.offset + UploadBody.pieceSize, data.count)
            let start = data.startIndex + position.offset
            position.offset = end
            return ByteBuffer(bytes: data[start..<(data.startIndex + end)])
        }
    }

    private func read(_ url: URL) throws -> ByteBuffer? {
        try position.withLockedValue { position in
            guard !position.done else { return nil }
            if position.descriptor < 0 {
                position.descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
                guard position.descriptor >= 0 else {
                    throw URLError(.fileDoesNotExist, userInfo: [NSLocalizedDescriptionKey: "cannot open \(url.path)"])
                }
            }
            let descriptor = position.descriptor
            var buffer = ByteBufferAllocator().buffer(capacity: UploadBody.pieceSize)
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: UploadBody.pieceSize) { bytes in
                let count = Foundation.read(descriptor, bytes.baseAddress, bytes.count)
                guard count >= 0 else {
                    throw URLError(.cannotOpenFile, userInfo: [NSLocalizedDescriptionKey: "cannot read \(url.path)"])
                }
                return count
            }
            guard count > 0 else {
                position.done = true
                close(descriptor)
                position.descriptor = -1
                return nil
            }
            return buffer
        }
    }
}
