import Foundation
import FuzzSupport
import NetworkKit

/// The stream parsers (lines, JSON Lines, JSON text sequences, server-sent events) on any bytes,
/// fed whole, in chunks cut where the input says, and byte by byte: the same items and the same
/// outcome (an error of the same kind, or none) however the bytes arrive, and never a crash. When
/// the body fails, what a feeding delivered before the error is a prefix of what the others did
/// (a chunk that throws delivers none of its items).
@main enum FuzzStreams { static func main() { fuzzMain(fuzzStreams) } }

func fuzzStreams(_ data: Data) {
    var input = FuzzInput(data)
    // The first byte chooses how many cuts, the next ones where (as offsets into the body).
    let cutCount = Int(input.byte() % 8)
    let cutBytes = input.bytes(cutCount * 2)
    let body = input.rest()
    var cuts = stride(from: 0, to: cutBytes.count - 1, by: 2).map { index in
        body.isEmpty ? 0 : (Int(cutBytes[index]) << 8 | Int(cutBytes[index + 1])) % (body.count + 1)
    }
    cuts = Array(Set(cuts + [0, body.count])).sorted()
    let chunks = zip(cuts, cuts.dropFirst()).map { body.subdata(in: $0..<$1) }
    let byteByByte = body.count <= 512 ? body.map { Data([$0]) } : chunks

    compare(ServerSentEventParser(maxLineLength: 256, maxEventBytes: 512), contentType: "text/event-stream", body, chunks, byteByByte)
    compare(LineParser(maxLineLength: 256), contentType: "text/plain", body, chunks, byteByByte)
    compare(JSONLinesParser(JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data"), maxLineLength: 256),
            contentType: "application/jsonl", body, chunks, byteByByte)
    compare(JSONSequenceParser(maxRecordLength: 256), contentType: "application/json-seq", body, chunks, byteByByte)
}

/// What a parser made of a body: its items, described, and the kind of error it ended with.
struct Outcome: Equatable {
    var items: [String] = []
    var error: String?
}

func outcome<Parser: StreamParser>(_ parser: Parser, contentType: String, _ chunks: [Data]) -> Outcome {
    var parser = parser
    var outcome = Outcome()
    do {
        try parser.begin(Response(url: nil, status: 200, headerFields: [.contentType: contentType], data: Data()))
        for chunk in chunks { outcome.items += try parser.parse(chunk).map { String(describing: $0) } }
        outcome.items += try parser.finish().map { String(describing: $0) }
    } catch let error as ParseError {
        outcome.error = "\(error.parser) \(error.kind)"
    } catch let error as NetworkError {
        outcome.error = "\(error)"
    } catch {
        outcome.error = "\(type(of: error))"
    }
    return outcome
}

func compare<Parser: StreamParser>(_ parser: Parser, contentType: String, _ body: Data, _ chunks: [Data], _ bytes: [Data]) {
    let whole = outcome(parser, contentType: contentType, [body])
    for (name, feeding) in [("in \(chunks.count) chunks", chunks), ("byte by byte", bytes)] {
        let other = outcome(parser, contentType: contentType, feeding)
        invariant(agree(whole, other), "\(Parser.self): whole \(whole) but \(name) \(other)")
    }
}

/// The same items and no error, or the same error after items of which the shorter list is the
/// start of the longer.
func agree(_ one: Outcome, _ other: Outcome) -> Bool {
    guard one.error == other.error else { return false }
    guard one.error != nil else { return one.items == other.items }
    let (short, long) = one.items.count <= other.items.count ? (one.items, other.items) : (other.items, one.items)
    return Array(long.prefix(short.count)) == short
}
