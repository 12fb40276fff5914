import Foundation
@testable import NetworkKit
import Testing

/// Lines, JSON Lines and JSON text sequences, each fed whole and one byte at a time.
@Suite("Line, JSON Lines and JSON text sequence parsers")
struct LineParsersTests {
    static func head(_ type: String) -> Response {
        Response(url: nil, status: 200, headerFields: [.contentType: type], data: Data())
    }

    /// The items of `bytes` fed whole, and fed byte by byte (which must agree).
    static func items<P: StreamParser>(_ parser: P, _ bytes: [UInt8], type: String = "text/plain",
                                       sourceLocation: SourceLocation = #_sourceLocation) throws -> [P.Item]
    where P.Item: Equatable {
        var whole = parser, single = parser
        try whole.begin(head(type))
        try single.begin(head(type))
        let all = try whole.parse(Data(bytes)) + whole.finish()
        var one: [P.Item] = []
        for byte in bytes { one += try single.parse(Data([byte])) }
        one += try single.finish()
        #expect(all == one, "whole and byte by byte differ", sourceLocation: sourceLocation)
        return all
    }

    @Test func linesEndAtCRLFAndCRLFAndTheLastLineCounts() throws {
        #expect(try Self.items(LineParser(), Array("a\nb\r\nc\rd\r\n\ne".utf8)) == ["a", "b", "c", "d", "", "e"])
        #expect(try Self.items(LineParser(), Array("a\r".utf8)) == ["a"])
    }

    @Test func aLineOverTheLimitOrNotUTF8Throws() throws {
        var long = LineParser(maxLineLength: 4)
        #expect(throws: ParseError.self) { _ = try long.parse(Data("12345".utf8)) }
        var bad = LineParser()
        #expect { _ = try bad.parse(Data([0x61, 0xFF, 0x0A])) } throws: { error in
            (error as? ParseError)?.kind == .malformed && (error as? ParseError)?.reason.contains("line 1") == true
        }
    }

    @Test func jsonLinesCheckEachLineAndNameTheOneThatFails() throws {
        let parser = JSONLinesParser(JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data"))
        let good = Array("{\"code\":0,\"data\":1}\n\n  \n{\"code\":0,\"data\":\"é\"}".utf8)
        #expect(try Self.items(parser, good, type: "application/jsonl") == [1, "é"])
        var broken = parser
        try broken.begin(Self.head("application/jsonl"))
        #expect { _ = try broken.parse(Data("{\"code\":0,\"data\":1}\n{\"code\":0,\"data\":\n".utf8)) } throws: { error in
            (error as? ParseError)?.reason.hasPrefix("line 2:") == true
        }
        var business = parser
        try business.begin(Self.head("application/jsonl"))
        #expect { _ = try business.parse(Data("{\"code\":3,\"message\":\"no\"}\n".utf8)) } throws: { error in
            if case .businessCode(3, "no")? = error as? NetworkError { return true }
            return false
        }
    }

    @Test func jsonTextSequencesSkipATruncatedRecordAndRefuseABrokenOne() throws {
        let parser = JSONSequenceParser(JSONParser())
        let bytes: [UInt8] = [0x1E] + Array("{\"a\":1}\n".utf8) + [0x1E] + Array("{\"tru".utf8) + [0x1E] + Array("[2]\n".utf8)
            + [0x1E] + Array("3\n".utf8)
        #expect(try Self.items(parser, bytes, type: "application/json-seq") == [["a": 1], [2], 3])
        var broken = parser
        try broken.begin(Self.head("application/json-seq"))
        #expect { _ = try broken.parse(Data([0x1E] + Array("{\"a\":}\n".utf8) + [0x1E])) } throws: { error in
            (error as? ParseError)?.reason.hasPrefix("record 1:") == true
        }
    }

    @Test func byteChunksComeAsTheyArrive() throws {
        var parser = ByteChunkParser()
        #expect(try parser.parse(Data("ab".utf8)) == [Data("ab".utf8)])
        #expect(try parser.finish().isEmpty)
    }
}
