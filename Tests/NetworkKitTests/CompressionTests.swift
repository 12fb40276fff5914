import Foundation
import NetworkKit
import FixtureServer
import Testing

/// The content codings in the core (`Decompressor`): pure functions, checked against the gzip
/// and zstd tools.
@Suite struct CompressionTests {
    let text = Data((0..<5_000).map { "line \($0): the quick brown fox\n" }.joined().utf8)

    @Test(arguments: ContentCoding.allCases)
    func roundTrips(_ coding: ContentCoding) throws {
        for level in Set([coding.levels.lowerBound, 1, 6, 9, coding.levels.upperBound]) {
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

    @Test func zstdIsReadableByTheZstdTool() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nk-\(UUID().uuidString).zst")
        defer { try? FileManager.default.removeItem(at: file) }
        try Decompressor.compress(text, coding: .zstd).write(to: file)
        #expect(runTool(["zstd", "-q", "-t", file.path]) == 0)
    }

    /// Concatenated zstd frames are read one after another, as the zstd tool does; zero padding
    /// after the last is skipped, and other bytes after it are corrupt.
    @Test func zstdFramesAreJoinedAndPaddingSkipped() throws {
        let first = try Decompressor.compress(Data("hello, ".utf8), coding: .zstd)
        let second = try Decompressor.compress(Data("world".utf8), coding: .zstd)
        #expect(try Decompressor.inflate(first + second + Data(count: 3), coding: .zstd, limit: 100) == Data("hello, world".utf8))
        #expect(throws: ParseError.self) { try Decompressor.inflate(first + Data("junk".utf8), coding: .zstd, limit: 100) }
    }

    /// A zstd frame that asks for a window over 8 MiB is refused (RFC 9659), before the decoder
    /// reserves it: the zstd tool's `--long=27` writes one.
    @Test func aZstdWindowOver8MiBIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = folder.appendingPathComponent("plain"), packed = folder.appendingPathComponent("plain.zst")
        try Data(count: 32 << 20).write(to: plain)
        try #require(runTool(["zstd", "-q", "--long=27", plain.path, "-o", packed.path]) == 0, "the zstd tool is needed")
        #expect {
            try Decompressor.inflate(try Data(contentsOf: packed), coding: .zstd, limit: 64 << 20)
        } throws: { error in
            (error as? ParseError)?.reason.contains("corrupt zstd stream") == true
        }
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

    @Test(arguments: ContentCoding.allCases)
    func bombsAreRefusedAtTheLimit(_ coding: ContentCoding) throws {
        let bomb = try Decompressor.compress(Data(count: 64 << 20), coding: coding, level: 9)
        #expect(bomb.count < 100_000)
        #expect {
            try Decompressor.inflate(bomb, coding: coding, limit: 1 << 20)
        } throws: { error in
            (error as? ParseError) == ParseError(parser: "decompress", reason: "decompressed size exceeds limit of 1048576 bytes", kind: .limit)
        }
    }

    @Test(arguments: ContentCoding.allCases)
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
            (error as? ParseError)?.reason.hasPrefix("truncated \(coding.name) stream") == true
        }
        #expect(throws: ParseError.self) { try Decompressor.inflate(compressed + Data("junk".utf8), coding: coding, limit: 1 << 20) }
    }

    @Test(arguments: ContentCoding.allCases)
    func levelsOutsideTheCodingsRangeThrow(_ coding: ContentCoding) {
        for level in [coding.levels.lowerBound - 1, coding.levels.upperBound + 1] {
            #expect(throws: ParseError.self, "\(level)") { try Decompressor.compress(text, coding: coding, level: level) }
        }
    }

    @Test func headerValuesNameTheCodings() {
        #expect(ContentCoding(headerValue: " BR ") == .brotli)
        #expect(ContentCoding(headerValue: "zstd") == .zstd)
        #expect(ContentCoding(headerValue: "compress") == nil)
        #expect(ContentCoding.allCases.map(\.rawValue) == ["gzip", "deflate", "br", "zstd"])
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
    @Test(arguments: ContentCoding.allCases)
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

    @Test(arguments: ContentCoding.allCases)
    func pieceSizeBoundsEachDeliveryAndAThrowStopsInflating(_ coding: ContentCoding) throws {
        let bomb = try Decompressor.compress(Data(count: 8 << 20), coding: coding)
        let inflater = StreamingInflater(coding: coding, pieceSize: 64 * 1024)
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

    @Test(arguments: ContentCoding.allCases)
    func truncatedAndCorruptStreamsThrowParseErrors(_ coding: ContentCoding) throws {
        let compressed = try Decompressor.compress(Self.sample, coding: coding)
        let cut = StreamingInflater(coding: coding)
        try cut.inflate(compressed.dropLast(10)) { _ in }
        #expect { try cut.finish() } throws: { error in
            (error as? ParseError)?.reason.hasPrefix("truncated \(coding.name) stream") == true
        }

        var damaged = compressed
        damaged[20] ^= 0xff
        damaged[21] ^= 0xff
        let corrupt = StreamingInflater(coding: coding)
        // Brotli has no checksum: a damaged stream may decode to other bytes, never crash.
        if coding == .brotli {
            _ = try? { try corrupt.inflate(damaged) { _ in }; try corrupt.finish() }()
        } else {
            #expect(throws: ParseError.self) {
                try corrupt.inflate(damaged) { _ in }
                try corrupt.finish()
            }
        }
        let trailing = StreamingInflater(coding: coding)
        #expect(throws: ParseError.self) {
            try trailing.inflate(compressed + Data("junk".utf8)) { _ in }
            try trailing.finish()
        }
        let empty = StreamingInflater(coding: coding)
        try empty.finish()
    }
}

/// `nk get --compressed`, as curl's, and what `-v` says of an encoded answer.
@Suite("nk get --compressed")
struct CompressedCommandLineTests {
    @Test("--compressed offers every coding and -v names the one that answered; without it, identity",
          arguments: ["nio", "urlsession"], ["br", "zstd"])
    func compressed(transport: String, coding: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let run = try await CommandLine_.nk(["get", "--transport", transport, "--compressed", "-v",
                                             server.url("/compressed/\(coding)?count=50")])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("item 49"), "\(run.output)")
        #expect(run.errors.contains("> Accept-Encoding: gzip, deflate, br, zstd"), "\(run.errors)")
        let name = coding == "br" ? "brotli" : coding
        #expect(run.errors.contains("the body is \(name)-encoded"), "\(run.errors)")
        #expect(run.errors.contains("bytes received (decoded from \(name))"), "\(run.errors)")

        let plain = try await CommandLine_.nk(["get", "--transport", transport, "-v", server.url("/echo")])
        #expect(plain.errors.contains("> Accept-Encoding: identity"), "\(plain.errors)")
    }
}
