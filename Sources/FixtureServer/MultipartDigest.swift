import CZlib
import Foundation

/// One part of a multipart body, as the fixture's multipart route reports it.
struct UploadedPart: Equatable, Sendable {
    /// The parameters of its `Content-Disposition` header (`name`, `filename`, …), unquoted.
    var disposition: [String: String] = [:]
    /// Its `Content-Type` header, if it had one.
    var contentType: String?
    /// The length of its body in bytes.
    var size = 0
    /// The CRC-32 (zlib's) of its body.
    var crc32: UInt32 = 0

    /// The part as the route's JSON answer shows it: the disposition's parameters, then
    /// `contentType` (when the part had one), `size` and `crc32`.
    var json: [String: Any] {
        var object: [String: Any] = disposition
        if let contentType { object["contentType"] = contentType }
        object["size"] = size
        object["crc32"] = Int(crc32)
        return object
    }
}

/// What a multipart parse reported so far: the parts it completed, and counts of its callbacks
/// from which a reader tells what the bytes it just fed to the parser did.
final class PartDigest {
    /// How many of each callback the parser made.
    struct Counts: Equatable {
        /// Header fields read (`onHeader`).
        var headers = 0
        /// Body bytes passed on (`onBody`, and bodies read around the parser), all parts together.
        var bodyBytes = 0
        /// Parts completed (`onPartComplete`).
        var parts = 0
    }

    /// The completed parts, in order.
    private(set) var parts: [UploadedPart] = []
    /// The callbacks counted so far.
    private(set) var counts = Counts()
    private var current = UploadedPart()

    /// A header field of the current part.
    func header(_ name: String, _ value: String) {
        counts.headers += 1
        switch name.lowercased() {
        case "content-disposition":
            for parameter in value.split(separator: ";").dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2 else { continue }
                let quoted = pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"")
                current.disposition[pair[0]] = quoted ? String(pair[1].dropFirst().dropLast()) : pair[1]
            }
        case "content-type":
            current.contentType = value
        default:
            break
        }
    }

    /// Bytes of the current part's body, in order.
    func body(_ bytes: UnsafeRawBufferPointer) {
        counts.bodyBytes += bytes.count
        current.size += bytes.count
        current.crc32 = PartChecksum.crc32(bytes, continuing: current.crc32)
    }

    /// The current part ended.
    func endPart() {
        counts.parts += 1
        parts.append(current)
        current = UploadedPart()
    }
}

/// The checksum `/upload/multipart` reports for each part: zlib's CRC-32 of its body.
public enum PartChecksum {
    /// The CRC-32 of `bytes`, or of the bytes whose CRC-32 is `crc` followed by `bytes`.
    public static func crc32(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        var value = uLong(crc)
        guard var pointer = bytes.baseAddress else { return crc }
        var remaining = bytes.count
        while remaining > 0 {  // zlib takes 32-bit lengths
            let count = min(remaining, 1 << 30)
            value = CZlib.crc32(value, pointer.assumingMemoryBound(to: Bytef.self), uInt(count))
            pointer += count
            remaining -= count
        }
        return UInt32(truncatingIfNeeded: value)
    }

    /// The CRC-32 of `bytes`.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0) }
    }
}
