import Foundation
import NetworkKit
import FixtureServer
import Testing

/// gzip/deflate in the core (`Decompressor`): pure functions, checked against the gzip tool.
@Suite struct CompressionTests {
    let text = Data((0..<5_000).map { "line \($0): the quick brown fox\n" }.joined().utf8)

    @Test(arguments: [ContentCoding.gzip, .deflate])
    func roundTrips(_ coding: ContentCoding) throws {
        for level in [0, 1, 6, 9] {
            let compressed = try Decompressor.compress(text, coding: coding, level: level)
            #expect(level == 0 || compressed.count < text.count / 5)
            #expect(try Decompressor.inflate(compressed, coding: coding, limit: text.count) == text)
        }
        let empty = try Decompressor.compress(Data(), coding: coding)
        #expect(try Decompressor.inflate(empty, coding: coding, limit: 0).isEmpty)
    }

    @Test func gzipIsReadableByTheGzipTool() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nk-\(UUID().uuidString).gz")
        defer { try? FileManager.default.removeItem(at: file) }
        try Decompressor.compress(text, coding: .gzip).write(to: file)
        #expect(runTool(["gzip", "-t", file.path]) == 0)
    }

    @Test func rawDeflateIsAcceptedAsDeflate() throws {
        let zlibWrapped = try Decompressor.compress(text, coding: .deflate)
        // Raw deflate is the zlib stream without its 2-byte header and 4-byte Adler-32 trailer.
        let raw = zlibWrapped.dropFirst(2).dropLast(4)
        #expect(try Decompressor.inflate(Data(raw), coding: .deflate, limit: 1 << 20) == text)
    }

    @Test func concatenatedGzipMembersAreJoined() throws {
        let first = try Decompressor.compress(Data("hello, ".utf8), coding: .gzip)
        let second = try Decompressor.compress(Data("world".utf8), coding: .gzip)
        #expect(try Decompressor.inflate(first + second, coding: .gzip, limit: 100) == Data("hello, world".utf8))
    }

    @Test func gzipBombIsRefusedAtTheLimit() throws {
        // 64 MB of zeros compress to ~64 KB; a 1 MB limit must stop it without inflating it all.
        let bomb = try Decompressor.compress(Data(count: 64 << 20), coding: .gzip, level: 9)
        #expect(bomb.count < 100_000)
        let started = Date()
        #expect {
            try Decompressor.inflate(bomb, coding: .gzip, limit: 1 << 20)
        } throws: { error in
            (error as? ParseError) == ParseError(parser: "decompress", reason: "decompressed size exceeds limit of 1048576 bytes", kind: .limit)
        }
        #expect(Date().timeIntervalSince(started) < 1)
        // Exactly at the limit is fine; one byte over is not.
        let small = try Decompressor.compress(Data(count: 1000), coding: .deflate)
        #expect(try Decompressor.inflate(small, coding: .deflate, limit: 1000).count == 1000)
        #expect(throws: ParseError.self) { try Decompressor.inflate(small, coding: .deflate, limit: 999) }
    }

    @Test(arguments: [ContentCoding.gzip, .deflate])
    func truncatedAndCorruptStreamsThrow(_ coding: ContentCoding) throws {
        let compressed = try Decompressor.compress(text, coding: coding)
        for length in stride(from: 0, to: compressed.count, by: 7) {
            #expect(throws: ParseError.self, "\(length) bytes") {
                try Decompressor.inflate(compressed.prefix(length), coding: coding, limit: 1 << 20)
            }
        }
        var random = SeededGenerator(seed: 7)
        for _ in 0..<200 {
            var damaged = compressed
            damaged[Int.random(in: 0..<damaged.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            // Either an error or (rarely, for deflate without checksum) some output: never a crash.
            _ = try? Decompressor.inflate(damaged, coding: coding, limit: 1 << 20)
        }
        #expect {
            try Decompressor.inflate(compressed.prefix(compressed.count / 2), coding: coding, limit: 1 << 20)
        } throws: { error in
            (error as? ParseError)?.reason.hasPrefix("truncated \(coding.rawValue) stream") == true
        }
        #expect(throws: ParseError.self) { try Decompressor.inflate(compressed + Data("junk".utf8), coding: coding, limit: 1 << 20) }
    }

    @Test func invalidLevelThrows() {
        #expect(throws: ParseError.self) { try Decompressor.compress(text, coding: .gzip, level: 10) }
    }

    /// Heads look `Content-Encoding` up when their headers are set: a header changed after the
    /// head was made still counts.
    @Test func contentEncodingSetAfterwardsCounts() {
        var head = ResponseHead(url: nil, status: 200, headerFields: [.contentEncoding: "x-gzip"])
        #expect(head.contentCoding == .gzip)
        head.headerFields[.contentEncoding] = nil
        #expect(head.contentCoding == nil)
    }
}

/// The streaming inflater the NIO transport and the stub decode with (compressed answers over
/// the wire are conformance scenarios, `Scenarios.compressed`).
@Suite("Compressed answers")
struct CompressedAnswerTests {
    /// The body is inflated once, as its `Content-Encoding` says, by whichever side inflates: a
    /// body compressed twice reaches the parser as the inner compressed bytes.
    @Test(arguments: TransportKind.allCases)
    func aBodyCompressedTwiceIsInflatedOnce(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let once = try Decompressor.compress(Data(#"{"code": 0}"#.utf8), coding: .gzip)
        fixture.server.publish(try Decompressor.compress(once, coding: .gzip), as: "twice", contentType: "application/gzip")
        #expect(try await fixture.service.send(Request(path: "/blob/twice?encoding=gzip")) == once)
    }

    static let sample = Data((0..<20_000).map { UInt8(truncatingIfNeeded: ($0 * 7) % 251 / 3) })

    /// Every way of cutting a body into two pieces inflates to the same bytes.
    @Test(arguments: [ContentCoding.gzip, .deflate])
    func splitAnywhereInflatesTheSame(_ coding: ContentCoding) throws {
        let compressed = try Decompressor.compress(Self.sample, coding: coding)
        for cut in stride(from: 0, through: compressed.count, by: max(1, compressed.count / 300)) + [1, 2, 3] {
            let inflater = StreamingInflater(coding: coding, pieceSize: 1024)
            var output = Data()
            try inflater.inflate(compressed.prefix(cut)) { output += $0 }
            try inflater.inflate(compressed.dropFirst(cut)) { output += $0 }
            try inflater.finish()
            #expect(output == Self.sample, "cut at \(cut)")
        }
    }

    @Test func rawDeflateConcatenatedMembersAndPaddingAreRead() throws {
        let raw = FixtureZlib.compress(Self.sample, windowBits: -15)
        var output = Data()
        let inflater = StreamingInflater(coding: .deflate)
        try inflater.inflate(raw) { output += $0 }
        try inflater.finish()
        #expect(output == Self.sample)

        let gzip = try Decompressor.compress(Self.sample, coding: .gzip)
        let twoMembers = gzip + gzip + Data(count: 8)
        output = Data()
        let joined = StreamingInflater(coding: .gzip)
        for byte in twoMembers { try joined.inflate(Data([byte])) { output += $0 } }
        try joined.finish()
        #expect(output == Self.sample + Self.sample)
    }

    @Test func pieceSizeBoundsEachDeliveryAndAThrowStopsInflating() throws {
        let bomb = try Decompressor.compress(Data(count: 8 << 20), coding: .gzip)
        let inflater = StreamingInflater(coding: .gzip, pieceSize: 64 * 1024)
        var delivered = 0
        struct Enough: Error {}
        #expect(throws: Enough.self) {
            try inflater.inflate(bomb) { piece in
                #expect(piece.count <= 64 * 1024)
                delivered += piece.count
                if delivered >= 1 << 20 { throw Enough() }
            }
        }
        #expect(delivered == 1 << 20)
    }

    @Test func truncatedAndCorruptStreamsThrowParseErrors() throws {
        let gzip = try Decompressor.compress(Self.sample, coding: .gzip)
        let cut = StreamingInflater(coding: .gzip)
        try cut.inflate(gzip.dropLast(10)) { _ in }
        #expect(throws: ParseError.self) { try cut.finish() }

        var damaged = gzip
        damaged[20] ^= 0xff
        damaged[21] ^= 0xff
        let corrupt = StreamingInflater(coding: .gzip)
        #expect(throws: ParseError.self) {
            try corrupt.inflate(damaged) { _ in }
            try corrupt.finish()
        }
        let trailing = StreamingInflater(coding: .gzip)
        #expect(throws: ParseError.self) { try trailing.inflate(gzip + Data("junk".utf8)) { _ in } }
    }
}
