import Foundation
@testable import NetworkKit
import Testing

/// Feeds stream parsers the same bytes in every way the tests ask for: whole, in every two-way
/// split, and one byte per chunk.
enum Feeding {
    /// What a parser made of a body: its items and the error it stopped with, if any.
    struct Parsed<Item> {
        var items: [Item] = []
        var error: (any Error)?
    }

    /// The ways of cutting `count` bytes: whole, in two at every point, and byte by byte.
    static func ways(_ count: Int) -> [[Range<Int>]] {
        var ways = [[0..<count]]
        for cut in 0...count { ways.append([0..<cut, cut..<count]) }
        ways.append((0..<count).map { $0..<($0 + 1) })
        return ways
    }

    /// A head with `contentType`, and `envelope` if given.
    static func head(_ contentType: String, envelope: ResponseEnvelope? = nil) -> Response {
        var response = Response(url: nil, status: 200, headerFields: [.contentType: contentType], data: Data())
        response.envelope = envelope
        return response
    }

    /// `parser` (a copy) given `head`, then `bytes` cut as `chunks`, then the end of the body.
    static func run<Parser: StreamParser>(_ parser: Parser, _ bytes: [UInt8], _ chunks: [Range<Int>],
                                          head: Response) -> Parsed<Parser.Item> {
        var parser = parser
        var outcome = Parsed<Parser.Item>()
        do {
            try parser.begin(head)
            for range in chunks { outcome.items += try parser.parse(Data(bytes[range])) }
            outcome.items += try parser.finish()
        } catch {
            outcome.error = error
        }
        return outcome
    }

    /// Every way of feeding `bytes` gives `expected` and no error.
    static func check<Parser: StreamParser>(_ parser: Parser, _ bytes: [UInt8], _ expected: [Parser.Item],
                                            head: Response = head("application/octet-stream"),
                                            sourceLocation: SourceLocation = #_sourceLocation) where Parser.Item: Equatable {
        for chunks in ways(bytes.count) {
            let outcome = run(parser, bytes, chunks, head: head)
            #expect(outcome.error == nil, "fed as \(chunks)", sourceLocation: sourceLocation)
            #expect(outcome.items == expected, "fed as \(chunks)", sourceLocation: sourceLocation)
        }
    }

    /// Every way of feeding `bytes` stops with an error that `matches`, after delivering at most
    /// `before` (the whole feeding delivers none of the failing chunk's items); returns the error
    /// of the whole feeding.
    @discardableResult
    static func checkFails<Parser: StreamParser>(_ parser: Parser, _ bytes: [UInt8], before: [Parser.Item],
                                                 head: Response = head("application/octet-stream"),
                                                 sourceLocation: SourceLocation = #_sourceLocation,
                                                 _ matches: (any Error) -> Bool) -> (any Error)? where Parser.Item: Equatable {
        var first: (any Error)?
        for chunks in ways(bytes.count) {
            let outcome = run(parser, bytes, chunks, head: head)
            first = first ?? outcome.error
            #expect(outcome.error.map(matches) == true, "fed as \(chunks): \(String(describing: outcome.error))",
                    sourceLocation: sourceLocation)
            #expect(Array(before.prefix(outcome.items.count)) == outcome.items, "fed as \(chunks)",
                    sourceLocation: sourceLocation)
        }
        // Fed byte by byte, every item before the failing one arrives.
        let single = run(parser, bytes, (0..<bytes.count).map { $0..<($0 + 1) }, head: head)
        #expect(single.items == before, "fed byte by byte", sourceLocation: sourceLocation)
        return first
    }
}

extension Array where Element == UInt8 {
    /// The UTF-8 bytes of `text`.
    init(utf8 text: String) { self = Array(text.utf8) }
}

/// The splitter and the parsers of raw chunks and lines.
@Suite("Stream parsers: lines and chunks")
struct StreamParserTests {
    /// A `StreamParser` that only splits lines, so the splitter goes through every feeding.
    struct Split: StreamParser {
        var lines: LineSplitter
        init(maxLineLength: Int = 1 << 20) { lines = LineSplitter(maxLineLength: maxLineLength) }
        mutating func parse(_ chunk: Data) throws -> [Data] { try lines.split(chunk) }
        mutating func finish() throws -> [Data] { try lines.finish() }
    }

    static func lines(_ texts: String...) -> [Data] { texts.map { Data($0.utf8) } }

    @Test("lines end at CR, LF and CRLF; a CR then LF across chunks is one line end")
    func lineEnds() {
        Feeding.check(Split(), [UInt8](utf8: "a\rb\nc\r\nd\n\re\r\r\nf\n"), Self.lines("a", "b", "c", "d", "", "e", "", "f"))
        Feeding.check(Split(), [UInt8](utf8: "\r\n\r\n"), Self.lines("", ""))
        Feeding.check(Split(), [UInt8](utf8: "\n\r"), Self.lines("", ""))
    }

    @Test("finish gives a last line without a line end, and nothing after a line end")
    func lastLine() {
        Feeding.check(Split(), [UInt8](utf8: "a\nb"), Self.lines("a", "b"))
        Feeding.check(Split(), [UInt8](utf8: "a\r"), Self.lines("a"))
        Feeding.check(Split(), [], [])
    }

    @Test("an empty chunk between CR and LF does not split the line end, even a slice with an address")
    func emptyChunks() throws {
        var splitter = LineSplitter()
        let storage = Data("xxxx\nxxxx".utf8)
        #expect(try splitter.split(Data("a\r".utf8)) == Self.lines("a"))
        #expect(try splitter.split(storage[4..<4]).isEmpty)
        #expect(try splitter.split(Data()).isEmpty)
        #expect(try splitter.split(Data("\nb\n".utf8)) == Self.lines("b"))
    }

    @Test("reset forgets the unfinished line and a pending CR")
    func reset() throws {
        var splitter = LineSplitter()
        #expect(try splitter.split(Data("half\r".utf8)) == Self.lines("half"))
        _ = try splitter.split(Data("tail".utf8))
        splitter.reset()
        #expect(try splitter.split(Data("\nnext\n".utf8)) == Self.lines("", "next"))
        #expect(try splitter.finish().isEmpty)
    }

    @Test("a line of the limit passes; one byte more throws, with or without a line end")
    func lineLimit() {
        let limit = ParseError(parser: "lines", reason: "a line is longer than the limit of 4 bytes", kind: .limit)
        Feeding.check(Split(maxLineLength: 4), [UInt8](utf8: "abcd\r\nefgh"), Self.lines("abcd", "efgh"))
        Feeding.checkFails(Split(maxLineLength: 4), [UInt8](utf8: "ab\nabcde\n"), before: Self.lines("ab")) {
            $0 as? ParseError == limit
        }
        Feeding.checkFails(Split(maxLineLength: 4), [UInt8](utf8: "ab\nabcde"), before: Self.lines("ab")) {
            $0 as? ParseError == limit
        }
    }

    @Test("the splitter's lines are the bytes between line ends, also for a large body in odd chunks")
    func largeBody() throws {
        var text = ""
        for index in 0..<2000 { text += String(repeating: "é", count: index % 37) + ["\n", "\r", "\r\n"][index % 3] }
        let bytes = Data(text.utf8)
        var splitter = LineSplitter()
        var lines: [Data] = []
        var offset = 0
        var size = 1
        while offset < bytes.count {
            let end = min(bytes.count, offset + size)
            lines += try splitter.split(bytes.subdata(in: offset..<end))
            offset = end
            size = size * 7 % 101 + 1
        }
        lines += try splitter.finish()
        #expect(lines == (0..<2000).map { Data(String(repeating: "é", count: $0 % 37).utf8) })
    }

    @Test("ByteChunkParser gives each chunk as it is")
    func byteChunks() throws {
        var parser = ByteChunkParser()
        try parser.begin(Feeding.head("application/octet-stream"))
        #expect(try parser.parse(Data([1, 2, 3])) == [Data([1, 2, 3])])
        #expect(try parser.parse(Data([0x0D])) == [Data([0x0D])])
        #expect(try parser.finish().isEmpty)
        let bytes = [UInt8](utf8: "any\r\nbytes\u{1E}")
        for chunks in Feeding.ways(bytes.count) {
            let outcome = Feeding.run(ByteChunkParser(), bytes, chunks, head: Feeding.head("text/plain"))
            #expect(outcome.items.map(Array.init) == chunks.map { Array(bytes[$0]) })
        }
    }

    @Test("LineParser decodes each line once complete: split 2- and 4-byte characters come out whole")
    func lineText() {
        Feeding.check(LineParser(), [UInt8](utf8: "café\r\n😀 at the end\rnaïve\n\nlast é"),
                      ["café", "😀 at the end", "naïve", "", "last é"])
    }

    @Test("LineParser: a line that is not UTF-8 is malformed and named")
    func lineInvalidUTF8() {
        let bytes = [UInt8](utf8: "ok\n") + [0x61, 0xC3, 0x28] + [UInt8](utf8: "\nnever\n")
        Feeding.checkFails(LineParser(), bytes, before: ["ok"]) {
            $0 as? ParseError == ParseError(parser: "lines", reason: "line 2 is not valid UTF-8", kind: .malformed)
        }
        // A character the body ends in the middle of fails at the end.
        Feeding.checkFails(LineParser(), [UInt8](utf8: "ok\n") + [0xF0, 0x9F, 0x98], before: ["ok"]) {
            ($0 as? ParseError)?.kind == .malformed
        }
    }

    @Test("LineParser: a line over the limit throws; begin forgets the unfinished line and the count")
    func lineLimitAndBegin() throws {
        Feeding.checkFails(LineParser(maxLineLength: 3), [UInt8](utf8: "abc\nabcd"), before: ["abc"]) {
            $0 as? ParseError == ParseError(parser: "lines", reason: "a line is longer than the limit of 3 bytes", kind: .limit)
        }
        var parser = LineParser()
        #expect(parser.maxLineLength == 1 << 20)
        try parser.begin(Feeding.head("text/plain"))
        #expect(try parser.parse(Data("one\nhalf".utf8)) == ["one"])
        try parser.begin(Feeding.head("text/plain"))
        #expect(throws: ParseError(parser: "lines", reason: "line 1 is not valid UTF-8", kind: .malformed)) {
            _ = try parser.parse(Data([0xFF, 0x0A]))
        }
    }

    /// The sample in `StreamParser`'s documentation.
    struct WordParser: StreamParser {
        private var lines = LineSplitter()

        mutating func parse(_ chunk: Data) throws -> [String] {
            try lines.split(chunk).flatMap(Self.words)
        }

        mutating func finish() throws -> [String] {
            try lines.finish().flatMap(Self.words)
        }

        private static func words(_ line: Data) -> [String] {
            String(decoding: line, as: UTF8.self).split(separator: " ").map(String.init)
        }
    }

    @Test("the documentation's sample parser splits words across chunks")
    func documentationSample() {
        Feeding.check(WordParser(), [UInt8](utf8: "one two\r\nthree  four\nfive"), ["one", "two", "three", "four", "five"])
    }
}
