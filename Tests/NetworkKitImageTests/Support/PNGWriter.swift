import FixtureServer
import Foundation
import NetworkKit

/// Writes PNG files sample by sample, in every colour type, bit depth and interlace method, so
/// the tests know every pixel a decoder must return without asking another decoder.
struct PNGWriter {
    /// PNG colour types (IHDR byte 9).
    enum ColorType: UInt8 {
        case gray = 0, rgb = 2, palette = 3, grayAlpha = 4, rgba = 6

        var channels: Int {
            switch self {
            case .gray, .palette: 1
            case .grayAlpha: 2
            case .rgb: 3
            case .rgba: 4
            }
        }
    }

    let width: Int
    let height: Int
    let colorType: ColorType
    let bitDepth: Int
    var interlaced = false
    /// The `gAMA` chunk's value (gamma × 100 000), or nil for none.
    var gamma: UInt32?
    /// `PLTE` entries (RGB) for palette images.
    var palette: [UInt8] = []
    /// `tRNS` alpha values for the first palette entries.
    var transparency: [UInt8] = []

    /// Adam7's passes: first column, first row, column step, row step.
    static let adam7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]

    /// The file, with `samples(x, y)` giving each pixel's channel values at `bitDepth`.
    func data(samples: (Int, Int) -> [Int]) throws -> Data {
        var scanlines = Data()
        let passes = interlaced ? Self.adam7 : [(0, 0, 1, 1)]
        for (x0, y0, dx, dy) in passes where x0 < width && y0 < height {
            for y in stride(from: y0, to: height, by: dy) {
                scanlines.append(0) // filter type None
                scanlines.append(contentsOf: packedRow(stride(from: x0, to: width, by: dx).map { samples($0, y) }))
            }
        }
        var file = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header.append(contentsOf: [UInt8(bitDepth), colorType.rawValue, 0, 0, interlaced ? 1 : 0])
        file.appendChunk("IHDR", header)
        if let gamma {
            var value = Data()
            value.appendBigEndian(gamma)
            file.appendChunk("gAMA", value)
        }
        if colorType == .palette { file.appendChunk("PLTE", Data(palette)) }
        if !transparency.isEmpty { file.appendChunk("tRNS", Data(transparency)) }
        file.appendChunk("IDAT", try Decompressor.compress(scanlines, coding: .deflate))
        file.appendChunk("IEND", Data())
        return file
    }

    /// One row of pixels packed at `bitDepth`: bits most significant first below 8, big-endian at 16.
    private func packedRow(_ pixels: [[Int]]) -> [UInt8] {
        let values = pixels.flatMap { $0 }
        switch bitDepth {
        case 16:
            return values.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case 8:
            return values.map { UInt8($0) }
        default:
            var row = [UInt8](repeating: 0, count: (values.count * bitDepth + 7) / 8)
            for (index, value) in values.enumerated() {
                let bit = index * bitDepth
                row[bit / 8] |= UInt8(value << (8 - bitDepth - bit % 8))
            }
            return row
        }
    }
}
