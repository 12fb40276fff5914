import Foundation
import FuzzSupport
import MultipartKit
import NetworkKit

/// The multipart builder on any field names, values, file names and bytes: what it encodes,
/// multipart-kit's parser reads back as the same number of parts with the same bodies.
@main enum FuzzMultipart { static func main() { fuzzMain(fuzzMultipart) } }

/// The parts multipart-kit's parser found.
final class ParsedParts {
    var bodies: [[UInt8]] = []
    var current: [UInt8] = []
}

func fuzzMultipart(_ data: Data) {
    var input = FuzzInput(data)
    var form = MultipartForm()
    var bodies: [[UInt8]] = []
    for _ in 0..<(input.byte() % 6) {
        let name = input.string(maxLength: 24)
        if input.byte() % 2 == 0 {
            let value = input.string(maxLength: 48)
            form.append(value, name: name)
            bodies.append(Array(value.utf8))
        } else {
            let fileName = input.string(maxLength: 24)
            let bytes = input.bytes(Int(input.byte()))
            form.append(Data(bytes), name: name, fileName: fileName, contentType: input.byte() % 2 == 0 ? nil : "image/png")
            bodies.append(bytes)
        }
    }
    // A form with no part is no multipart body at all (RFC 2046 asks for one part at least), and
    // multipart-kit refuses it: nothing to compare.
    guard !bodies.isEmpty else { return }
    let encoded: Data
    do {
        encoded = try FuzzHooks.encoded(form)
    } catch {
        return invariant(false, "an in-memory form failed to encode: \(error)")
    }
    let parsed = ParsedParts()
    let parser = MultipartParser(boundary: form.boundary)
    parser.onBody = { buffer in parsed.current += Array(buffer.readableBytesView) }
    parser.onPartComplete = {
        parsed.bodies.append(parsed.current)
        parsed.current = []
    }
    do {
        try parser.execute(Array(encoded))
    } catch {
        return invariant(false, "multipart-kit cannot parse what the kit encoded (\(error)): \(String(decoding: encoded.prefix(2_000), as: UTF8.self).debugDescription)")
    }
    invariant(parsed.bodies == bodies, "\(bodies.count) parts sent, \(parsed.bodies.count) read back, or their bytes differ")
}
