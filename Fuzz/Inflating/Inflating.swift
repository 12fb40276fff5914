import Foundation
import FuzzSupport
import NetworkKit

/// gzip and deflate bodies under a limit, one-shot (`Decompressor`) and in pieces
/// (`StreamingInflater`): never more than the limit, and the same bytes whenever both succeed.
@main enum FuzzInflate { static func main() { fuzzMain(fuzzInflate) } }

/// Thrown to stop the streaming inflater at the limit.
struct OverLimit: Error {}

func fuzzInflate(_ data: Data) {
    var input = FuzzInput(data)
    let coding: ContentCoding = input.byte() % 2 == 0 ? .gzip : .deflate
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
