import CImageShims
import NetworkKit

/// Shrinks an RGBA8 image fed one source row at a time, top to bottom, by box filtering: each
/// output pixel is the average of the source pixels it covers, colours weighted by alpha so that
/// transparent pixels lend the edge no colour. It holds the output and one row of sums, so a
/// decoder that produces rows one by one (PNG) never needs the whole source in memory.
struct BoxFilter {
    let targetWidth: Int
    let targetHeight: Int
    private let sourceHeight: Int
    /// The source columns of output column x: `columnStarts[x] ..< columnEnds[x]`.
    private let columnStarts: [Int]
    private let columnEnds: [Int]
    private var sums: [UInt64]
    private var output: [UInt8]
    /// The next source row expected, and the output row it falls in.
    private var sourceRow = 0
    private var outputRow = 0

    /// A filter from `sourceWidth` × `sourceHeight` to a target no larger in either direction.
    /// - Throws: `ParseError(parser: "image")` when the target is empty or larger than the source.
    init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int) throws {
        guard targetWidth > 0, targetHeight > 0, targetWidth <= sourceWidth, targetHeight <= sourceHeight else {
            throw ParseError.image("cannot box-filter \(sourceWidth)×\(sourceHeight) to \(targetWidth)×\(targetHeight)")
        }
        self.targetWidth = targetWidth
        self.targetHeight = targetHeight
        self.sourceHeight = sourceHeight
        columnStarts = (0..<targetWidth).map { Self.span($0, target: targetWidth, source: sourceWidth).lowerBound }
        columnEnds = (0..<targetWidth).map { Self.span($0, target: targetWidth, source: sourceWidth).upperBound }
        sums = [UInt64](repeating: 0, count: targetWidth * 4)
        output = try [UInt8](repeating: 0, count: PixelBuffer.rgbaLayout(width: targetWidth, height: targetHeight).count)
    }

    /// True once every source row has been added.
    var isComplete: Bool { sourceRow == sourceHeight }

    /// Adds the next source row (at least `sourceWidth` RGBA8 pixels); rows past the last are ignored.
    mutating func add(row: UnsafePointer<UInt8>) {
        guard sourceRow < sourceHeight else { return }
        sums.withUnsafeMutableBufferPointer { sums in
            nk_box_add_row(row, targetWidth, columnStarts, columnEnds, sums.baseAddress)
        }
        sourceRow += 1
        // Targets are no taller than sources, so the spans of output rows tile the source rows.
        let rows = Self.span(outputRow, target: targetHeight, source: sourceHeight)
        guard sourceRow == rows.upperBound else { return }
        let offset = outputRow * targetWidth * 4
        sums.withUnsafeMutableBufferPointer { sums in
            output.withUnsafeMutableBufferPointer { output in
                nk_box_emit_row(sums.baseAddress, targetWidth, columnStarts, columnEnds, rows.count,
                                output.baseAddress.map { $0 + offset })
            }
        }
        outputRow += 1
    }

    /// The output rows (`targetWidth * 4` bytes each); rows not reached yet are zero.
    var pixels: [UInt8] { output }

    /// The source indices that destination index `index` covers (never empty).
    private static func span(_ index: Int, target: Int, source: Int) -> Range<Int> {
        let start = index * source / target
        let end = max((index + 1) * source / target, start + 1)
        return start..<min(end, source)
    }
}
