import CImageShims
import Foundation
import NetworkKit

/// The previews of a progressive JPEG: a second libjpeg decoder, in buffered-image mode at the
/// DCT scale the previews need, fed the bytes of the file that can change a preview at that scale
/// (``JPEGScanFilter``: at 1/8, the AC scans are left out). It offers a preview after every scan
/// of the file; after a scan it was not given, the preview is the one before, unchanged.
///
/// It never fails the stream: once it meets an error it stops (``isStopped``), and the decoder of
/// the final image reports what is wrong with the file.
struct JPEGScanPreviews {
    private var stream: JPEGStream?
    private var filter: JPEGScanFilter
    private let maxPixelSize: Int?
    /// The last preview made, and how many of the decoder's scans it shows.
    private var lastPreview: (decodedScans: Int, image: DecodedImage)?
    private var header: JPEGHeader?
    private var outputWidth = 0
    private var outputHeight = 0
    /// The decoder's scans whose data has all arrived (the filter may have left some of the file's
    /// scans out of them).
    private var decodedScans = 0
    /// The most of the file's scans a preview was offered for.
    private var offeredScans = 0
    /// The end marker was read: the final image shows the last scan.
    private var reachedEnd = false
    /// An output pass whose end needs data that has not arrived.
    private var outputPending = false
    private var started = false

    /// Previews at most `maxPixelSize` on their longest side.
    init(maxPixelSize: Int?) throws {
        stream = try JPEGStream(strict: false)
        self.maxPixelSize = maxPixelSize
        filter = JPEGScanFilter { width, height in
            let target = ImageDecodingOptions(maxPixelSize: maxPixelSize).targetSize(width: width, height: height)
            return JPEGCodec.scaleNumerator(longestSide: max(width, height), wanted: max(target.width, target.height)) == 1
        }
    }

    /// True once previews stopped, for good.
    var isStopped: Bool { stream == nil }

    /// The bytes its decoder holds, not consumed yet.
    var heldBytes: Int { stream?.heldBytes ?? 0 }

    mutating func stop() {
        stream = nil
    }

    /// Decodes `bytes`. Returns the newest completed scan not offered before, if any; scans
    /// complete only before the end marker count (the final image shows the last).
    mutating func append(_ bytes: Data) -> Int? {
        guard let stream else { return nil }
        let needed = filter.filter(bytes)
        guard !filter.isBroken else {
            stop()
            return nil
        }
        do {
            if !needed.isEmpty { try stream.append(needed) }
            try advance(stream)
        } catch {
            stop()
            return nil
        }
        var completed = decodedScans
        if filter.isFiltering {
            // The file's scans that ended, as far as the decoder has caught up with them.
            completed = filter.completedScans
            while completed > 0, filter.decodedScans(through: completed) > decodedScans { completed -= 1 }
        }
        // While an output pass waits for the next scan's start, only the last preview can be offered
        // again (after scans the decoder was not given).
        let reusesLastPreview = filter.isFiltering && lastPreview?.decodedScans == filter.decodedScans(through: completed)
        guard !outputPending || reusesLastPreview, !reachedEnd, !filter.reachedEnd, completed > offeredScans else { return nil }
        offeredScans = completed
        return completed
    }

    private mutating func advance(_ stream: JPEGStream) throws {
        if header == nil {
            var info = nk_jpeg_info()
            guard try stream.readHeader(&info) else { return }
            let header = JPEGHeader(info)
            guard header.isProgressive else { return stop() }
            let target = ImageDecodingOptions(maxPixelSize: maxPixelSize)
                .targetSize(width: header.sourceWidth, height: header.sourceHeight)
            try stream.setScale(header.numerator(for: target), &info)
            (outputWidth, outputHeight) = (Int(info.width), Int(info.height))
            self.header = header
        }
        if !started {
            // Without the AC scans, an output pass must not wait for a scan that will not come.
            if filter.isFiltering { stream.setBlockSmoothing(false) }
            guard try stream.start(buffered: true) else { return }
            started = true
        }
        if outputPending {
            guard try stream.finishOutput() else { return }
            outputPending = false
        }
        reachedEnd = try stream.consume(completedScans: &decodedScans)
    }

    /// The image as of the last scan offered, fitted within `maxPixelSize`.
    mutating func preview() throws -> DecodedImage {
        let scan = filter.isFiltering ? filter.decodedScans(through: offeredScans) : offeredScans
        if let lastPreview, lastPreview.decodedScans == scan { return lastPreview.image }
        guard let stream, let header, scan > 0 else {
            throw ParseError.image("no JPEG scan to preview")
        }
        let target = ImageDecodingOptions(maxPixelSize: maxPixelSize).targetSize(width: outputWidth, height: outputHeight)
        var boxFilter = try BoxFilter(sourceWidth: outputWidth, sourceHeight: outputHeight,
                                      targetWidth: target.width, targetHeight: target.height)
        do {
            let ended = try stream.output(scan: scan, width: outputWidth) { strip, rows, stride in
                header.addRows(strip, count: rows, stride: stride, width: outputWidth, to: &boxFilter)
            }
            outputPending = !ended
        } catch {
            stop()
            throw error
        }
        let image = try DecodedImage(
            width: target.width, height: target.height, pixels: boxFilter.pixels, format: .jpeg,
            orientation: header.orientation, sourceWidth: header.sourceWidth, sourceHeight: header.sourceHeight
        )
        lastPreview = (scan, image)
        return image
    }
}

/// What a JPEG's header says that decoding needs.
struct JPEGHeader {
    let sourceWidth: Int
    let sourceHeight: Int
    let orientation: ImageOrientation
    let isCMYK: Bool
    let isAdobeInverted: Bool
    let isProgressive: Bool
    let isArithmetic: Bool

    /// Reads `info` as `nk_jpeg_stream_read_header` filled it (the EXIF block must still be valid).
    init(_ info: nk_jpeg_info, isArithmetic: Bool = false) {
        sourceWidth = Int(info.source_width)
        sourceHeight = Int(info.source_height)
        orientation = EXIFOrientation.read(UnsafeRawBufferPointer(start: info.exif, count: info.exif_length))
        isCMYK = info.is_cmyk != 0
        isAdobeInverted = info.adobe_inverted != 0
        isProgressive = info.progressive != 0
        self.isArithmetic = isArithmetic
    }

    /// The DCT scaling numerator (n/8) `JPEGCodec` picks for an image fitted to `target`.
    func numerator(for target: (width: Int, height: Int)) -> Int {
        JPEGCodec.scaleNumerator(longestSide: max(sourceWidth, sourceHeight), wanted: max(target.width, target.height))
    }

    /// Adds `count` decoded rows (`stride` bytes apart, `width` pixels each) to `filter`, CMYK
    /// ones converted to RGBA first, as `JPEGCodec` converts its image.
    func addRows(_ rows: UnsafePointer<UInt8>, count: Int, stride: Int, width: Int, to filter: inout BoxFilter) {
        guard isCMYK else {
            for row in 0..<count { filter.add(row: rows + row * stride) }
            return
        }
        for row in 0..<count {
            var pixels = Array(UnsafeBufferPointer(start: rows + row * stride, count: width * 4))
            CMYKConversion.convertToRGBA(&pixels, inverted: isAdobeInverted)
            pixels.withUnsafeBufferPointer { buffer in
                if let base = buffer.baseAddress { filter.add(row: base) }
            }
        }
    }
}
