import CZlib
import Foundation

extension FixtureImages {
    /// The picture as an 8-bit RGB PNG, Adam7-interlaced: each of its seven passes (a sub-image
    /// of every 8th, 4th, 2nd pixel…) refines the whole image. Empty if zlib failed.
    public static let interlacedPNG: Data = {
        let (width, height) = (320, 240)
        var scanlines = Data()
        for (xStart, yStart, xStep, yStep) in adam7 {
            let columns = stride(from: xStart, to: width, by: xStep).map { $0 }
            guard !columns.isEmpty else { continue }
            for y in stride(from: yStart, to: height, by: yStep) {
                scanlines.append(0) // filter type None
                for x in columns {
                    let (red, green, blue) = pixel(x: x, y: y, width: width, height: height)
                    scanlines.append(contentsOf: [red, green, blue])
                }
            }
        }
        guard let compressed = deflated(scanlines) else { return Data() }
        var header = Data()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header.append(contentsOf: [8, 2, 0, 0, 1]) // 8-bit RGB, deflate, adaptive filtering, Adam7
        var file = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        file.appendChunk("IHDR", header)
        file.appendChunk("IDAT", compressed)
        file.appendChunk("IEND", Data())
        return file
    }()

    /// The seven Adam7 passes: first column, first row, column step, row step.
    static let adam7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]

    /// The colour of the picture at (x, y): a radial gradient, a red disc, a blue box, a white triangle.
    static func pixel(x: Int, y: Int, width: Int, height: Int) -> (UInt8, UInt8, UInt8) {
        let (dx, dy) = (Double(x - width / 2), Double(y - height / 2))
        if (x - width / 3) * (x - width / 3) + (y - height / 2) * (y - height / 2) < 1600 { return (232, 85, 58) }
        if x >= width * 3 / 5, x <= width * 7 / 8, y >= height / 4, y <= height * 3 / 4 { return (58, 168, 232) }
        if y > height * 2 / 3, abs(x - width / 3) * 3 < (y - height * 2 / 3) * 4 { return (250, 250, 250) }
        let distance = min(1, (dx * dx + dy * dy).squareRoot() / 200)
        return (UInt8(20 + 210 * (1 - distance)), UInt8(30 + 200 * (1 - distance)), UInt8(90 + 120 * distance))
    }

    /// `data` as one zlib stream (PNG's IDAT), or nil when zlib failed.
    private static func deflated(_ data: Data) -> Data? {
        var length = compressBound(uLong(data.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = data.withUnsafeBytes { source in
            compress2(&output, &length, source.bindMemory(to: Bytef.self).baseAddress, uLong(data.count), 6)
        }
        return status == Z_OK ? Data(output.prefix(Int(length))) : nil
    }
}
