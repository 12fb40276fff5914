import CImageShims
import Foundation
import NetworkKit

extension JPEGCodec: IncrementalImageCodec {
    /// A decoder that consumes the file as it arrives (libjpeg with a suspending source), keeping
    /// only the bytes libjpeg has not consumed. Its final image is `decode`'s for the whole file:
    /// the same libjpeg calls, the same DCT scale, CMYK conversion, EXIF orientation, warnings
    /// and box filter. It offers a preview after each scan of a progressive file but the last
    /// (``ImageStreamStage/scan(_:)``), and the top rows of a sequential one
    /// (``ImageStreamStage/rows(_:)``), when `previews` asks for them. An arithmetic-coded file,
    /// which libjpeg cannot decode from bytes that are still arriving, is kept whole and decoded
    /// by `decode` at the end, without previews.
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
    /// The bytes so far while the header is read, then the whole body of an arithmetic-coded
    /// file; nil once the file is known to decode as it arrives.
    private var kept: Data? = Data()
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

    /// The most bytes kept while the header is read.
    static let maxHeaderBytes = 4 << 20

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
        guard phase != .done else { return nil }
        if header?.isArithmetic == true {
            kept?.append(bytes)
            return nil
        }
        kept?.append(bytes)
        if let count = kept?.count, count > Self.maxHeaderBytes { kept = nil }
        do {
            try stream.append(bytes)
            try advance()
        } catch {
            failure = error
            throw error
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
        if header?.isArithmetic == true {
            guard let kept else {
                throw ParseError.image("invalid JPEG: an arithmetic-coded file whose header is over \(Self.maxHeaderBytes) bytes")
            }
            self.kept = nil
            return try codec.decode(kept, options: options)
        }
        stream.end()
        try advance()
        guard phase == .done, let header else { throw ParseError.image("invalid JPEG: the decoder stopped before the end") }
        if header.isCMYK {
            CMYKConversion.convertToRGBA(&pixels, inverted: header.isAdobeInverted)
        }
        let image = try DecodedImage(
            width: width, height: height, bytesPerRow: bytesPerRow, pixels: pixels,
            scale: options.scale ?? 1, format: .jpeg, orientation: header.orientation,
            sourceWidth: header.sourceWidth, sourceHeight: header.sourceHeight,
            isIncomplete: stream.isIncomplete, warnings: stream.warnings
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
                kept = nil
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
