import Foundation

/// What the kit checks before it hands bytes to Foundation's JSON scanner (`JSONDecoder`,
/// `JSONSerialization`). On Linux, swift-foundation's scanner (Swift 6.3) traps instead of
/// throwing when the bracket that opens the 513th level of nesting is the input's last byte
/// (513 `[` and nothing after): working out where the error is reads past the end. No JSON text
/// ends with an opening bracket, so text that does is refused here as malformed, before the
/// scanner sees it. `FuzzCorpusTests` replays the input that found it.
enum FoundationJSONInput {
    /// Whether Foundation's scanner may be given `data`: false when its last byte other than white
    /// space opens an array or an object, which no JSON text does.
    static func isSafe(_ data: Data) -> Bool {
        guard let last = data.last(where: { !$0.isJSONWhitespace }) else { return true }
        return last != UInt8(ascii: "[") && last != UInt8(ascii: "{")
    }

    /// The error for text `isSafe` refuses, as `JSONParser` names malformed text.
    static var endsInsideContainer: ParseError {
        ParseError(parser: "json", reason: "malformed JSON: the text ends inside an array or object", kind: .malformed)
    }
}
