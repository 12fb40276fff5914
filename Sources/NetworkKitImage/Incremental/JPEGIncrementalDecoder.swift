import CImageShims
import Foundation
import NetworkKit

extension JPEGCodec: IncrementalImageCodec {
    /// A decoder that consumes the file as it arrives (libjpeg with a suspending source). Its
    /// final image is `decode`'s for the whole file: the same libjpeg calls, the same DCT scale,
    /// CMYK conversion, EXIF orientation, warnings and box filter. It offers a preview after each
    /// scan of a progressive file but the last (``ImageStreamStage/scan(_:)``), and the top rows
    /// of a sequential one (``ImageStreamStage/rows(_:)``), when `previews` asks for them.
    ///
    /// It also keeps the body: libjpeg reads damaged data slightly differently when the bytes
    /// arrive in pieces (its fast Huffman path needs many bytes at hand), so a file libjpeg warned
    /// about or failed on while it arrived is decoded again by `decode` from the whole body at
    /// the end, and the result is `decode`'s, error or image. An arithmetic-coded file, which
    /// libjpeg cannot decode from bytes that are still arriving, is decoded by `decode` at the
    /// end, without previews.
    public func makeIncrementalDecoder(options: ImageDecodingOptions, previews: ImagePreviewPolicy) throws
        -> any IncrementalImageDecoder {
        JPEGIncrementalDecoder(state: try JPEGIncrementalState(codec: self, options: options, previews: previews))
    }
}

/// ``JPEGIncrementalState`` behind a lock, as the parser's decoder.
typealias JPEGIncrementalDecoder = LockedIncrementalDecoder<JPEGIncrementalState>

extension LockedIncrementalDecoder where State == JPEGIncrementalState {
    /// The bytes its libjpeg decoders hold, not consumed yet.
    var heldBytes: Int {
        state.withLock { $0.heldBytes }
    }
}

/// The decode of one JPEG as its bytes arrive: the final image in libjpeg's normal mode, rows
/// top-down into the final buffer, and the scan previews beside it.
struct JPEGIncrementalState: IncrementalDecodeState {
    private enum Phase {
        case header, starting, rows, finishing, done
    }

    private let codec: JPEGCodec
    private let options: ImageDecodingOptions
    private let stream: JPEGStream
    /// The body so far, for `decode` at the end when the streamed decode cannot be trusted to
    /// match it (see `makeIncrementalDecoder`).
    private var kept = Data()
    /// Why the streamed decode stopped, if it did: the end decodes `kept` instead.
    private var streamFailure: (any Error)?
    private var phase = Phase.header
    private var header: JPEGHeader?
    private var width = 0
    private var height = 0
    private var bytesPerRow = 0
    private var pixels: [UInt8] = []
    private var rowsDone = 0
    private var failure: (any Error)?
    private var scans: JPEGScanPreviews?
    private var rows: TopDownPreviews?
    private var lastStage: ImageStreamStage?

    init(codec: JPEGCodec, options: ImageDecodingOptions, previews: ImagePreviewPolicy) throws {
        self.codec = codec
        self.options = options
        stream = try JPEGStream(strict: options.isStrict)
        if previews.sources.contains(.progressiveScans) {
            scans = try JPEGScanPreviews(maxPixelSize: previews.maxPixelSize)
        }
        if previews.sources.contains(.partialRows) {
            rows = TopDownPreviews(maxPixelSize: previews.maxPixelSize)
        }
    }

    mutating func append(_ bytes: Data) throws -> ImageStreamStage? {
        if let failure { throw failure }
        kept.append(bytes)
        guard phase != .done, streamFailure == nil, header?.isArithmetic != true else { return nil }
        do {
            try stream.append(bytes)
            try advance()
        } catch where header == nil {
            // What is wrong with the header (not a JPEG, over the pixel limit) fails the stream at
            // once, as it fails `decode`.
            failure = error
            throw error
        } catch {
            // The end decodes the whole body: the streamed pixels are of no more use.
            streamFailure = error
            pixels = []
            stopPreviews()
            return nil
        }
        var stage: ImageStreamStage?
        if let scan = scans?.append(bytes) { stage = .scan(scan) }
        if phase == .done { scans = nil }
        if phase == .done || header?.isProgressive == true { rows = nil }
        if let header, let rowStage = rows?.newRows(rowsDone, outputHeight: height, sourceHeight: header.sourceHeight) {
            stage = rowStage
        }
        if stage != nil { lastStage = stage }
        return stage
    }

    mutating func preview() throws -> DecodedImage {
        switch lastStage {
        case .scan?:
            guard var scans else { throw ParseError.image("no JPEG scan to preview") }
            defer { self.scans = scans.isStopped ? nil : scans }
            return try scans.preview()
        case .rows?:
            guard var rows, let header else { throw ParseError.image("no JPEG rows to preview") }
            defer { self.rows = rows }
            let (width, bytesPerRow) = (width, bytesPerRow)
            return try pixels.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { throw ParseError.image("no JPEG rows to preview") }
                return try rows.preview(
                    of: base, width: width, height: height, bytesPerRow: bytesPerRow, format: .jpeg,
                    orientation: header.orientation, sourceWidth: header.sourceWidth, sourceHeight: header.sourceHeight
                ) { rows, count, filter in
                    header.addRows(rows, count: count, stride: bytesPerRow, width: width, to: &filter)
                }
            }
        default:
            throw ParseError.image("no JPEG preview is due")
        }
    }

    /// The bytes the decoders hold, not consumed yet.
    var heldBytes: Int {
        stream.heldBytes + (scans?.heldBytes ?? 0)
    }

    mutating func stopPreviews() {
        scans = nil
        rows = nil
    }

    mutating func finish() throws -> DecodedImage {
        if let failure { throw failure }
        stopPreviews()
        if streamFailure == nil, header?.isArithmetic != true {
            stream.end()
            do {
                try advance()
            } catch {
                streamFailure = error
            }
        }
        guard streamFailure == nil, phase == .done, let header, !header.isArithmetic,
              !stream.isIncomplete, stream.warnings.isEmpty else {
            pixels = []
            defer { kept = Data() }
            return try codec.decode(kept, options: options)
        }
        kept = Data()
        if header.isCMYK {
            CMYKConversion.convertToRGBA(&pixels, inverted: header.isAdobeInverted)
        }
        let image = try DecodedImage(
            width: width, height: height, bytesPerRow: bytesPerRow, pixels: pixels,
            scale: options.scale ?? 1, format: .jpeg, orientation: header.orientation,
            sourceWidth: header.sourceWidth, sourceHeight: header.sourceHeight
        )
        pixels = []
        return try image.downsampled(for: options)
    }

    /// Runs the decode as far as the bytes so far allow.
    private mutating func advance() throws {
        while true {
            switch phase {
            case .header:
                var info = nk_jpeg_info()
                guard try stream.readHeader(&info) else { return }
                let header = JPEGHeader(info, isArithmetic: stream.isArithmetic)
                try options.checkSourceSize(width: header.sourceWidth, height: header.sourceHeight, format: .jpeg)
                self.header = header
                guard !header.isArithmetic else {
                    stopPreviews()
                    return
                }
                let target = options.targetSize(width: header.sourceWidth, height: header.sourceHeight)
                try stream.setScale(header.numerator(for: target), &info)
                (width, height) = (Int(info.width), Int(info.height))
                bytesPerRow = try PixelBuffer.rgbaLayout(width: width, height: height).bytesPerRow
                phase = .starting
            case .starting:
                guard try stream.start(buffered: false) else { return }
                pixels = [UInt8](repeating: 0, count: try PixelBuffer.byteCount(bytesPerRow, height))
                phase = .rows
            case .rows:
                guard try stream.readRows(into: &pixels, bytesPerRow: bytesPerRow, rowsDone: &rowsDone) else { return }
                phase = .finishing
            case .finishing:
                guard try stream.finish() else { return }
                phase = .done
            case .done:
                return
            }
        }
    }
}
