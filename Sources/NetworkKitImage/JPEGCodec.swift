import CImageShims
import Foundation
import NetworkKit

/// JPEG through libjpeg-turbo: baseline and progressive; gray and YCbCr decode straight to
/// RGBA, CMYK/YCCK (including Adobe's inverted CMYK) are converted to RGBA. The EXIF
/// orientation is reported, not applied.
///
/// A file that ends before its end marker (`FF D9`) is an error. One whose pixel data is cut short
/// or damaged but that ends properly decodes, with the rest gray, and ``DecodedImage/isIncomplete``
/// set; with ``ImageDecodingOptions/isStrict`` it throws ``IncompleteImageError`` instead.
///
/// A thumbnail uses DCT scaling (1/8…1), then a box filter brings it to the exact size.
///
/// At 1/8, a baseline, non-CMYK file goes to the 1/8-scale decoder (the `CJPEGEighth` target),
/// whose output bytes are libjpeg-turbo's own: it decodes only the coefficients that 1/8 scale
/// needs and splits the entropy-coded data into slices, one per 128 KB of file, at most
/// `maxThreads` and at most the cores that no other JPEG decode of the process keeps busy. It
/// takes files from 256 KB when two slices are allowed, otherwise from 512 KB on one slice.
/// The slices run on Dispatch's threads (`DispatchQueue.concurrentPerform`, from the thread that
/// called `decode`); the codec starts no thread of its own. A file that decoder does not handle
/// or finds corrupt is decoded by libjpeg like any other, so the errors and warnings are libjpeg's.
///
/// At 1/8, a progressive file is decoded by libjpeg without the scans that cannot change the
/// output: the AC scans of every component that 1/8 scaling decodes from its DC coefficient alone
/// (every component of a gray, 4:4:4 or 4:2:2 file; the luma of a 4:2:0 file, whose chroma keeps
/// every scan). The output bytes are the same as for the whole file: the scans are skipped only
/// when the file codes the first nine AC coefficients of every component in full (otherwise
/// libjpeg's block smoothing would change the DC values, and every scan is read). A skipped
/// scan's header and Huffman table are checked as libjpeg would check them, but its
/// entropy-coded data is not read, so damage there sets neither ``DecodedImage/isIncomplete``
/// nor a warning. With ``ImageDecodingOptions/isStrict`` every scan is read.
public struct JPEGCodec: ImageCodec {
    /// The most slices, and so threads, that one 1/8-scale decode is split into (1…8; more counts as 8).
    public let maxThreads: Int
    /// A thread count that overrides the choice by size and cores (0: never the fast path), for tests.
    let forcedEighthScaleThreads: Int?
    /// Whether a progressive file's thumbnail at 1/8 skips the scans it does not need (false for tests).
    let skipsUnneededScans: Bool

    /// Creates the codec. `maxThreads` caps the slices of one 1/8-scale decode (which takes
    /// only cores that other JPEG decodes leave free in any case): 1 keeps every decode on the
    /// thread that calls `decode`.
    public init(maxThreads: Int = 4) {
        self.maxThreads = max(1, maxThreads)
        forcedEighthScaleThreads = nil
        skipsUnneededScans = true
    }

    /// A codec whose 1/8-scale path always splits the scan into `eighthScaleThreads` slices (0: libjpeg
    /// alone), and that reads every scan of a progressive file unless `skippingScans`.
    init(eighthScaleThreads: Int, skippingScans: Bool = true) {
        maxThreads = max(1, eighthScaleThreads)
        forcedEighthScaleThreads = eighthScaleThreads
        skipsUnneededScans = skippingScans
    }

    /// `.jpeg`.
    public var format: ImageFormat { .jpeg }

    /// SOI followed by a marker: `FF D8 FF`.
    public func canDecode(_ data: Data) -> Bool {
        data.hasSignature([0xFF, 0xD8, 0xFF])
    }

    /// Decodes to RGBA8, DCT-scaled when `maxPixelSize` allows.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> DecodedImage {
        let others = Self.decodesUnderWay.withLock { count in
            defer { count += 1 }
            return count
        }
        defer { Self.decodesUnderWay.withLock { $0 -= 1 } }
        guard let decoder = nk_jpeg_create() else { throw ParseError.image("cannot create a JPEG decoder") }
        defer { nk_jpeg_destroy(decoder) }
        func failure() -> ParseError {
            let message = String(cString: nk_jpeg_message(decoder))
            if nk_jpeg_is_incomplete(decoder) != 0 && options.isStrict {
                return IncompleteImageError(format: .jpeg, reason: message).parseError
            }
            return ParseError.image("invalid JPEG: \(message)")
        }
        nk_jpeg_set_strict(decoder, options.isStrict ? 1 : 0)
        let image = try data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { throw ParseError.image("empty JPEG data") }
            var info = nk_jpeg_info()
            guard nk_jpeg_read_header(decoder, base, bytes.count, &info) == 0 else { throw failure() }
            let sourceWidth = Int(info.source_width), sourceHeight = Int(info.source_height)
            try options.checkSourceSize(width: sourceWidth, height: sourceHeight, format: .jpeg)
            let orientation = EXIFOrientation.read(UnsafeRawBufferPointer(start: info.exif, count: info.exif_length))

            let target = options.targetSize(width: sourceWidth, height: sourceHeight)
            let numerator = Self.scaleNumerator(longestSide: max(sourceWidth, sourceHeight), wanted: max(target.width, target.height))
            guard nk_jpeg_set_scale(decoder, UInt32(numerator), &info) == 0 else { throw failure() }
            if numerator == 1, info.progressive != 0, skipsUnneededScans, !options.isStrict {
                // Fails only past the scan limit; otherwise skips scans or leaves the file whole.
                guard nk_jpeg_skip_unneeded_scans(decoder) >= 0 else { throw failure() }
            }

            let width = Int(info.width), height = Int(info.height)
            let layout = try PixelBuffer.rgbaLayout(width: width, height: height)
            let threads = numerator == 1 && info.is_cmyk == 0
                ? threadsForEighthScale(byteCount: bytes.count, otherDecodes: others) : 0
            var pixels = try PixelBuffer.make(count: layout.count) { buffer in
                // The fast path leaves the decoder untouched when it declines, so libjpeg can take over.
                if threads > 0, let base = buffer.baseAddress,
                   EighthScaleDecoder.decode(decoder, into: base, bytesPerRow: layout.bytesPerRow, slices: threads) > 0 {
                    return
                }
                guard nk_jpeg_decode(decoder, buffer.baseAddress, layout.bytesPerRow) == 0 else { throw failure() }
            }
            if info.is_cmyk != 0 {
                CMYKConversion.convertToRGBA(&pixels, inverted: info.adobe_inverted != 0)
            }
            return try DecodedImage(
                width: width, height: height, bytesPerRow: layout.bytesPerRow, pixels: pixels,
                scale: options.scale ?? 1, format: .jpeg, orientation: orientation,
                sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                isIncomplete: nk_jpeg_is_incomplete(decoder) != 0, warnings: Self.warnings(of: decoder)
            )
        }
        return try image.downsampled(for: options)
    }

    /// The warnings libjpeg gave (those it kept word for word).
    private static func warnings(of decoder: OpaquePointer) -> [String] {
        (0..<nk_jpeg_warning_count(decoder)).compactMap { index in
            nk_jpeg_warning(decoder, index).map { String(cString: $0) }
        }
    }

    /// How many slices the 1/8-scale path splits a file of `byteCount` bytes into: one per
    /// 128 KB, within the free cores and `maxThreads`; one slice only from 512 KB. 0 leaves the
    /// decode to libjpeg.
    ///
    /// Only cores that `otherDecodes` (JPEG decodes under way in the process) leave free count,
    /// so decodes that arrive together do not split into more slices than there are cores, while
    /// a thumbnail decoded alone gets every core. The figures behind the rule
    /// (`NK_BENCH_ONLY=thumbnails`) are in BENCHMARKS.md.
    func threadsForEighthScale(byteCount: Int, otherDecodes: Int = 0) -> Int {
        if let forcedEighthScaleThreads { return forcedEighthScaleThreads }
        let freeCores = max(1, ProcessInfo.processInfo.activeProcessorCount - max(0, otherDecodes))
        let threads = min(freeCores, maxThreads, byteCount / Self.bytesPerThread)
        if threads >= 2 { return threads }
        return byteCount >= 4 * Self.bytesPerThread ? 1 : 0
    }

    /// JPEG decodes under way in the process, all codecs together; see `threadsForEighthScale`.
    private static let decodesUnderWay = Protected(0)

    /// The share of the file that makes another slice worth running.
    static let bytesPerThread = 128 * 1024

    /// The smallest n in 1…8 for which scaling by n/8 keeps the longest side at least `wanted`.
    static func scaleNumerator(longestSide: Int, wanted: Int) -> Int {
        (1...8).first { numerator in (longestSide * numerator + 7) / 8 >= wanted } ?? 8
    }
}
