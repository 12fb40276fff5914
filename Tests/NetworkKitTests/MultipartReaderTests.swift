import Foundation
import NIOCore
import Testing
@testable import FixtureServer

/// The fixture's multipart reader, which reads part bodies around multipart-kit, against
/// multipart-kit fed every byte: the same parts, or the same refusal, for any body cut into
/// chunks anywhere.
@Suite("Multipart reader")
struct MultipartReaderTests {
    /// What reading a body came to.
    enum Reading: Equatable {
        case parts([UploadedPart])
        case malformed, incomplete, outOfStep
    }

    /// Feeds `body` to a reader in chunks of the given sizes (cycled), then finishes it.
    static func read(_ body: [UInt8], boundary: String, bulk: Bool = true, chunks: [Int] = [.max]) -> Reading {
        guard let reader = MultipartReader(boundary: boundary, bulk: bulk) else { return .outOfStep }
        var offset = 0, turn = 0
        do {
            while offset < body.count {
                let count = min(body.count - offset, max(1, chunks[turn % chunks.count]))
                try reader.read(ByteBuffer(bytes: body[offset..<offset + count]))
                offset += count
                turn += 1
            }
            return .parts(try reader.finish())
        } catch .malformed {
            return .malformed
        } catch .incomplete {
            return .incomplete
        } catch {
            return .outOfStep
        }
    }

    @Test("a body full of near-delimiters reads the same whole, in single bytes and in odd chunks")
    func nearDelimiters() throws {
        let file = Array("a\r\n--b\r\n--boun\r\r\n--bounD\n\r\n-\r".utf8) + [0, 255, 13]
        let body = Array("--bound\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.bin\"\r\nContent-Type: a/b\r\n\r\n".utf8)
            + file + Array("\r\n--bound\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nhi\r\n--bound--\r\n".utf8)
        let expected = [
            UploadedPart(disposition: ["name": "f", "filename": "x.bin"], contentType: "a/b", size: file.count, crc32: PartChecksum.crc32(file)),
            UploadedPart(disposition: ["name": "t"], contentType: nil, size: 2, crc32: PartChecksum.crc32(Array("hi".utf8))),
        ]
        for chunks in [[.max], [1], [3, 1, 7], [10, 2]] {
            #expect(Self.read(body, boundary: "bound", chunks: chunks) == .parts(expected), "chunks \(chunks)")
        }
        #expect(Self.read(body, boundary: "bound", bulk: false) == .parts(expected))
    }

    @Test("refused: junk after a delimiter, a header without a colon, no close delimiter, an empty boundary or one with CR")
    func refusals() {
        let start = "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nhello"
        #expect(Self.read(Array((start + "\r\n--bjunk").utf8), boundary: "b") == .malformed)
        #expect(Self.read(Array("--b\r\nNoColon\r\n\r\nx\r\n--b--".utf8), boundary: "b") == .malformed)
        #expect(Self.read(Array((start + "\r\n--b\r\n").utf8), boundary: "b") == .incomplete)
        #expect(Self.read(Array((start + "\r\n--b").utf8), boundary: "b") == .incomplete)
        #expect(MultipartReader(boundary: "") == nil)
        #expect(MultipartReader(boundary: "a\rb") == nil)
    }

    @Test("a byte above 127 in a field name is refused (multipart-kit would trap); in a value, a body or the preamble it is read")
    func nonASCII() {
        let inName = Array("--b\r\nN".utf8) + [0xC3, 0xA9] + Array(": v\r\n\r\nx\r\n--b--".utf8)
        #expect(Self.read(inName, boundary: "b") == .malformed)
        let elsewhere = [0xFF] + Array("\r\n--b\r\nContent-Disposition: form-data; name=\"".utf8) + [0xC3, 0xA9]
            + Array("\"\r\n\r\n".utf8) + [0xFF, 0x80] + Array("\r\n--b--".utf8)
        let part = UploadedPart(disposition: ["name": "é"], size: 2, crc32: PartChecksum.crc32([0xFF, 0x80]))
        for chunks in [[.max], [1]] {
            #expect(Self.read(elsewhere, boundary: "b", chunks: chunks) == .parts([part]))
        }
    }

    @Test("a 12 MB part is read in bulk: multipart-kit sees its headers and delimiters only")
    func bulkPart() async throws {
        // Seconds of computing in a debug build: on a thread of its own (see `onThreadOfItsOwn`).
        let outcome = try await onThreadOfItsOwn { () throws -> (parts: [UploadedPart], expected: [UploadedPart], bytesParsed: Int)? in
            let file = FixtureFile.bytes(seed: 5, offset: 0, count: 12 << 20)
            let body = Array("--kit\r\nContent-Disposition: form-data; name=\"big\"\r\n\r\n".utf8) + file + Array("\r\n--kit--\r\n".utf8)
            guard let reader = MultipartReader(boundary: "kit") else { return nil }
            for start in stride(from: 0, to: body.count, by: 65_536) {
                try reader.read(ByteBuffer(bytes: body[start..<min(body.count, start + 65_536)]))
            }
            let expected = UploadedPart(disposition: ["name": "big"], size: file.count, crc32: PartChecksum.crc32(file))
            return (try reader.finish(), [expected], reader.bytesParsed)
        }
        let (parts, expected, bytesParsed) = try #require(outcome, "no reader for the boundary \"kit\"")
        #expect(parts == expected)
        #expect(bytesParsed < 200, "multipart-kit was fed \(bytesParsed) bytes")
    }

    @Test("random bodies, some broken, cut at random: the same outcome as multipart-kit reading every byte")
    func randomBodies() async throws {
        // Seconds of computing in a debug build: on a thread of its own (see `onThreadOfItsOwn`).
        let (mismatches, read) = try await onThreadOfItsOwn {
            var random = SeededGenerator(seed: 36)
            var read = 0
            var mismatches: [String] = []
            for round in 0..<1_500 {
                var maker = RandomBody(random: random)
                let (body, boundary) = maker.make()
                random = maker.random
                let reference = Self.read(body, boundary: boundary, bulk: false)
                let chunks = (0..<4).map { _ in Int.random(in: 1...(round % 2 == 0 ? 8 : 200), using: &random) }
                let bulk = Self.read(body, boundary: boundary, chunks: chunks)
                if bulk != reference {
                    mismatches.append("round \(round), chunks \(chunks): \(bulk) against \(reference) for \(String(decoding: body, as: UTF8.self).debugDescription)")
                }
                if case .parts = reference { read += 1 }
            }
            return (mismatches, read)
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) bodies read otherwise in bulk, the first: \(mismatches.first ?? "")")
        #expect(read > 300, "only \(read) of the random bodies were whole: the comparison says little about reading")
    }
}

/// Multipart bodies made of the pieces that trip delimiter searches: CR, LF, hyphens, prefixes
/// of the delimiter, the boundary without its CRLF; sometimes truncated or with a byte changed.
/// ASCII only: the reference, multipart-kit fed every byte, traps on a byte above 127 in a
/// header field name.
struct RandomBody {
    var random: SeededGenerator

    mutating func make() -> (body: [UInt8], boundary: String) {
        let boundary = String((0..<Int.random(in: 1...12, using: &random)).map { _ in "ab-'_ .\n".randomElement(using: &random) ?? "a" })
        let delimiter = Array("\r\n--\(boundary)".utf8)
        var body = Bool.random(using: &random) ? [] : noise(delimiter, count: 12)
        body += Bool.random(using: &random) ? Array(delimiter.dropFirst(2)) : delimiter
        for index in 0..<Int.random(in: 1...3, using: &random) {
            body += Array("\r\nContent-Disposition: form-data; name=\"p\(index)\"\r\n".utf8)
            if Bool.random(using: &random) { body += Array("Content-Type:  text/x\n y\r\n".utf8) }
            body += Array("\r\n".utf8) + noise(delimiter, count: Int.random(in: 0...40, using: &random)) + delimiter
        }
        body += Array("--".utf8) + (Bool.random(using: &random) ? noise(delimiter, count: 8) : [])
        for _ in 0..<Int.random(in: 0...2, using: &random) where !body.isEmpty {
            let at = Int.random(in: 0..<body.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: body.remove(at: at)
            case 1: body.insert(Array("\r\n-x".utf8).randomElement(using: &random) ?? 13, at: at)
            default: body = Array(body[..<at])
            }
        }
        return (body, boundary)
    }

    /// `count` pieces: single bytes, CRLFs, and prefixes of the delimiter.
    private mutating func noise(_ delimiter: [UInt8], count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<count {
            switch Int.random(in: 0..<5, using: &random) {
            case 0: bytes.append(UInt8.random(in: 0...127, using: &random))  // see nonASCII()
            case 1: bytes += Array("\r\n".utf8)
            case 2: bytes.append(Array("\r\n-".utf8).randomElement(using: &random) ?? 13)
            case 3: bytes += delimiter.prefix(Int.random(in: 1..<delimiter.count, using: &random))
            default: bytes += delimiter.dropFirst(2).prefix(Int.random(in: 1...delimiter.count - 2, using: &random))
            }
        }
        return bytes
    }
}
