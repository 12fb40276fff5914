import Foundation
import FuzzSupport
import NetworkKit

/// Thrown to stop the streaming inflater at the limit.
struct OverLimit: Error {}

/// One content-encoded body under a limit, decoded one-shot (`Decompressor`) and in pieces
/// (`StreamingInflater`): never more than the limit, never a piece larger than asked for, and
/// the same bytes whenever both succeed. The input's first byte picks one of `codings`, the next
/// two the limit and the size of the pieces fed; the rest is the body.
public func fuzzInflate(_ data: Data, codings: [ContentCoding]) {
    var input = FuzzInput(data)
    let coding = codings[Int(input.byte()) % codings.count]
    let limit = 1 + Int(input.byte()) * 4096
    let pieceSize = 1 + Int(input.byte())
    let compressed = input.rest()

    let oneShot = try? Decompressor.inflate(compressed, coding: coding, limit: limit)
    if let oneShot { invariant(oneShot.count <= limit, "one-shot inflated \(oneShot.count) bytes past the limit \(limit)") }

    let inflater = StreamingInflater(coding: coding, pieceSize: 1024)
    var streamed = Data()
    do {
        var offset = 0
        while offset < compressed.count {
            let end = min(compressed.count, offset + pieceSize)
            try compressed[offset..<end].withUnsafeBytes { bytes in
                try inflater.inflate(bytes) { piece in
                    invariant(piece.count <= 1024, "a piece of \(piece.count) bytes is larger than pieceSize")
                    streamed.append(piece)
                    if streamed.count > limit { throw OverLimit() }
                }
            }
            offset = end
        }
        try inflater.finish()
    } catch {
        return
    }
    if let oneShot { invariant(streamed == oneShot, "streaming (\(streamed.count) B) and one-shot (\(oneShot.count) B) inflate disagree") }
}
