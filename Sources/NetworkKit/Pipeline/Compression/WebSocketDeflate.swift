import CZlib
import Foundation

/// What a server accepted of the client's `permessage-deflate` offer (RFC 7692), read from the
/// `Sec-WebSocket-Extensions` field of its `101`. The client offers the extension with no
/// parameters, so it compresses with zlib's full window whatever the server says, and reads the
/// server's messages with a full window too (which any window the server picked fits in).
package struct WebSocketDeflateParameters: Sendable, Equatable {
    /// The server compresses each message on its own (a client may keep its inflater anyway).
    package var serverNoContextTakeover = false
    /// The client must compress each message on its own.
    package var clientNoContextTakeover = false
    /// The server's window, 8 to 15 bits.
    package var serverMaxWindowBits = 15

    /// The offer a client sends in `Sec-WebSocket-Extensions`.
    package static let offer = "permessage-deflate"

    /// Parameters with RFC 7692's defaults.
    package init() {}

    /// The extension the server's `Sec-WebSocket-Extensions` (nil when absent) accepted: nil for
    /// none, else its parameters.
    /// - Throws: a ``WebSocketExtensionError`` naming what the offer cannot take: an extension
    ///   it did not offer, the extension twice, a parameter it did not offer, twice, or out of range.
    package static func accepted(_ field: String?, offered: Bool) throws(WebSocketExtensionError) -> WebSocketDeflateParameters? {
        guard let field, !field.allSatisfy(\.isWhitespace) else { return nil }
        var accepted: WebSocketDeflateParameters?
        for element in field.split(separator: ",") {
            var parts = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            let name = parts.removeFirst().lowercased()
            guard name == "permessage-deflate", offered else {
                throw WebSocketExtensionError(reason: "the server accepted the extension \"\(name)\", which was not offered")
            }
            guard accepted == nil else { throw WebSocketExtensionError(reason: "the server accepted permessage-deflate twice") }
            accepted = try parameters(parts)
        }
        return accepted
    }

    private static func parameters(_ parts: [String]) throws(WebSocketExtensionError) -> WebSocketDeflateParameters {
        var parameters = WebSocketDeflateParameters()
        var seen: Set<String> = []
        for part in parts {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let name = pair[0].lowercased()
            let value = pair.count > 1 ? pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
            guard seen.insert(name).inserted else {
                throw WebSocketExtensionError(reason: "the server's permessage-deflate had \(name) twice")
            }
            switch (name, value) {
            case ("server_no_context_takeover", nil):
                parameters.serverNoContextTakeover = true
            case ("client_no_context_takeover", nil):
                parameters.clientNoContextTakeover = true
            case ("server_max_window_bits", let value?):
                guard let bits = Int(value), (8...15).contains(bits) else {
                    throw WebSocketExtensionError(reason: "the server's permessage-deflate had server_max_window_bits=\(value)")
                }
                parameters.serverMaxWindowBits = bits
            default:
                throw WebSocketExtensionError(reason: "the server's permessage-deflate had \(part), which the offer cannot take")
            }
        }
        return parameters
    }
}

/// Why a server's answer to the client's extension offer fails the connection.
package struct WebSocketExtensionError: Error, Equatable, CustomStringConvertible {
    /// What was wrong, in words.
    package let reason: String
    /// The reason.
    package var description: String { reason }
}

/// Why a message could not be compressed or decompressed.
package enum WebSocketCompressionError: Error, Equatable {
    /// The message inflated past the limit.
    case limitExceeded(Int)
    /// The bytes do not inflate (or zlib failed), with zlib's words.
    case corrupt(String)

    init(_ failure: CodingFailure) {
        switch failure {
        case .limitExceeded(let limit): self = .limitExceeded(limit)
        case .corrupt(let reason): self = .corrupt(reason)
        case .truncated: self = .corrupt("a compressed message ended early")
        case .inputTooLarge: self = .corrupt("a message over 4 GiB cannot be compressed")
        }
    }
}

/// The trailer a sync flush ends a deflate block with, which permessage-deflate leaves off the
/// wire (RFC 7692, 7.2.1) and the reader puts back.
private let syncFlushTrailer: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

/// Compresses one connection's messages for permessage-deflate: raw deflate, each message ended
/// by a sync flush whose trailer is left off; the window goes on from message to message unless
/// the server asked for no context takeover. One connection's, used by one thread at a time.
package final class WebSocketDeflater {
    private let stream: ZlibStream
    private let resetsEachMessage: Bool

    /// A deflater for a connection with `parameters`.
    package init(_ parameters: WebSocketDeflateParameters) throws(WebSocketCompressionError) {
        do {
            stream = try ZlibStream(deflateLevel: Z_DEFAULT_COMPRESSION, windowBits: -15)
        } catch {
            throw WebSocketCompressionError(error)
        }
        resetsEachMessage = parameters.clientNoContextTakeover
    }

    /// `message` compressed, as the payload of a message with RSV1 set.
    package func compress(_ message: UnsafeRawBufferPointer) throws(WebSocketCompressionError) -> Data {
        do {
            return try deflated(message)
        } catch {
            throw WebSocketCompressionError(error)
        }
    }

    private func deflated(_ message: UnsafeRawBufferPointer) throws(CodingFailure) -> Data {
        var output = try stream.run(input: message, initialCapacity: message.count / 2 + 64, limit: Int.max) { z in
            let status = deflate(z, Z_SYNC_FLUSH)
            guard status == Z_OK || status == Z_BUF_ERROR else { return .failed(.corrupt("deflate failed with zlib status \(status)")) }
            return z.pointee.avail_in == 0 && z.pointee.avail_out > 0 ? .finished : .more
        }
        if output.count >= 4, output.suffix(4).elementsEqual(syncFlushTrailer) { output.removeLast(4) }
        if resetsEachMessage { deflateReset(stream.stream) }
        return output
    }
}

/// Decompresses one connection's permessage-deflate messages, each within a limit: the window
/// goes on from message to message (a server without context takeover simply does not refer
/// back). One connection's, used by one thread at a time.
package final class WebSocketInflater {
    private let stream: ZlibStream

    /// An inflater with the largest window, which fits any window a server compresses with.
    package init() throws(WebSocketCompressionError) {
        do {
            stream = try ZlibStream(inflateWindowBits: -15)
        } catch {
            throw WebSocketCompressionError(error)
        }
    }

    /// The message whose compressed payload is `payload`, at most `limit` bytes.
    /// - Throws: ``WebSocketCompressionError/limitExceeded(_:)`` past `limit`,
    ///   ``WebSocketCompressionError/corrupt(_:)`` for bytes that do not inflate.
    package func decompress(_ payload: UnsafeRawBufferPointer, limit: Int) throws(WebSocketCompressionError) -> Data {
        var input = [UInt8](payload)
        input.append(contentsOf: syncFlushTrailer)
        do {
            return try input.withUnsafeBytes { try inflated($0, limit: limit) }
        } catch let failure as CodingFailure {
            throw WebSocketCompressionError(failure)
        } catch {
            throw .corrupt("\(error)")
        }
    }

    private func inflated(_ bytes: UnsafeRawBufferPointer, limit: Int) throws(CodingFailure) -> Data {
        let stream = stream
        return try stream.run(input: bytes, initialCapacity: min(max(bytes.count * 3, 256), max(limit, 0) + 1), limit: limit) { z in
            switch inflate(z, Z_SYNC_FLUSH) {
            case Z_STREAM_END:
                // A final block ends the stream: the next message starts a new one.
                inflateReset(z)
                return .finished
            case Z_OK, Z_BUF_ERROR:
                if z.pointee.avail_out == 0 { return .more }
                return z.pointee.avail_in == 0 ? .finished : .failed(.corrupt("a compressed message did not inflate"))
            default:
                return .failed(.corrupt(stream.message(or: "a compressed message did not inflate")))
            }
        }
    }
}
