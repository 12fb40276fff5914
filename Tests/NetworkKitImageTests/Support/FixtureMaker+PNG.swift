import FixtureServer
import Foundation
import NetworkKit

/// PNG fixtures, written by `PNGWriter` from known pixels: the pixels are the reference, so no
/// other decoder is trusted.
extension FixtureMaker {
    /// Every colour type at every bit depth PNG allows (but 1–4-bit gray alpha, which PNG lacks).
    static let pngLayouts: [(PNGWriter.ColorType, [Int])] = [
        (.gray, [1, 2, 4, 8, 16]), (.rgb, [8, 16]), (.palette, [1, 2, 4, 8]), (.grayAlpha, [8, 16]), (.rgba, [8, 16]),
    ]

    /// A `gAMA` of 1.0: the samples are linear light, so decoding converts them to sRGB.
    static let linearGamma: UInt32 = 100_000

    mutating func makePNGs() throws {
        for (name, type) in [("png_rgb8", PNGWriter.ColorType.rgb), ("png_rgba8", .rgba), ("png_gray8", .gray),
                             ("png_gray_alpha", .grayAlpha)] {
            try addPNG(name, TestImage(width: 37, height: 23), PNGWriter(width: 37, height: 23, colorType: type, bitDepth: 8))
        }
        try addPNG("png_palette_trns", TestImage(width: 29, height: 17),
                   PNGWriter(width: 29, height: 17, colorType: .palette, bitDepth: 4))
        let source = TestImage(width: 35, height: 19)
        try addPNG("png_interlaced", source, PNGWriter(width: 35, height: 19, colorType: .rgba, bitDepth: 8, interlaced: true))
        try addPNG("png_rgba16", source, PNGWriter(width: 35, height: 19, colorType: .rgba, bitDepth: 16))
        try addPNG("png_gray16", TestImage(width: 21, height: 13), PNGWriter(width: 21, height: 13, colorType: .gray, bitDepth: 16))

        // Every layout, plain and Adam7-interlaced, with and without gAMA. An odd size leaves
        // some passes partly empty.
        for (type, depths) in Self.pngLayouts {
            for depth in depths {
                for interlaced in [false, true] {
                    for gamma in [nil, Self.linearGamma] {
                        let name = "png_layout_\(type)\(depth)" + (interlaced ? "_adam7" : "") + (gamma == nil ? "" : "_gamma")
                        let writer = PNGWriter(width: 19, height: 13, colorType: type, bitDepth: depth,
                                               interlaced: interlaced, gamma: gamma)
                        // gAMA goes through libpng's gamma tables, which round 16-bit input on the way.
                        try addPNG(name, TestImage(width: 19, height: 13), writer, tolerance: gamma == nil ? 0 : 2)
                    }
                }
            }
        }

        let thumb = TestImage(width: 200, height: 120)
        try keep("png_thumb.png", PNGWriter(width: 200, height: 120, colorType: .rgb, bitDepth: 8).data { x, y in
            Array(thumb.pixel(x, y).prefix(3)).map(Int.init)
        })
        set.fixtures.append(Fixture(name: "png_thumb", file: "png_thumb.png", mime: "image/png", reference: nil,
                                    width: 50, height: 30, sourceWidth: 200, sourceHeight: 120, maxPixelSize: 50))

        // A valid header claiming 100 000 × 100 000 pixels, with a token IDAT.
        var file = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(100_000)
        header.appendBigEndian(100_000)
        header.append(contentsOf: [8, PNGWriter.ColorType.rgba.rawValue, 0, 0, 0])
        file.appendChunk("IHDR", header)
        file.appendChunk("IDAT", try Decompressor.compress(Data(count: 64), coding: .deflate))
        file.appendChunk("IEND", Data())
        try keep("png_huge_header.png", file)
    }

    /// Writes `image` in `writer`'s layout and adds it with the RGBA8 pixels decoding must give.
    private mutating func addPNG(_ name: String, _ image: TestImage, _ writer: PNGWriter, tolerance: Int? = nil) throws {
        var writer = writer
        let depth = writer.bitDepth
        let top = (1 << depth) - 1
        /// An 8-bit value at the writer's depth, and back to 8 bits as libpng expands it.
        func stored(_ value: UInt8) -> Int { depth >= 8 ? Int(value) * top / 255 : Int(value) >> (8 - depth) }
        func expanded(_ sample: Int) -> UInt8 { UInt8(sample * 255 / top) }

        let colours = min(1 << depth, 200)
        if writer.colorType == .palette {
            writer.palette = (0..<colours).flatMap { (entry: Int) -> [UInt8] in
                [UInt8(entry * 67 % 256), UInt8(entry * 131 % 256), UInt8((entry * 29 + 80) % 256)]
            }
            writer.transparency = Array([0, 128, 200].prefix(colours))
        }
        func samples(_ x: Int, _ y: Int) -> [Int] {
            let p = image.pixel(x, y).map { $0 }
            switch writer.colorType {
            case .gray: return [stored(image.gray(x, y))]
            case .grayAlpha: return [stored(image.gray(x, y)), stored(p[3])]
            case .rgb: return p.prefix(3).map(stored)
            case .rgba: return p.map(stored)
            case .palette: return [(x * 3 + y * 5 + Int(p[2])) % colours]
            }
        }
        var expected = [UInt8]()
        for y in 0..<image.height {
            for x in 0..<image.width {
                let s = samples(x, y)
                var rgba: [UInt8]
                switch writer.colorType {
                case .gray: rgba = [expanded(s[0]), expanded(s[0]), expanded(s[0]), 255]
                case .grayAlpha: rgba = [expanded(s[0]), expanded(s[0]), expanded(s[0]), expanded(s[1])]
                case .rgb: rgba = s.map(expanded) + [255]
                case .rgba: rgba = s.map(expanded)
                case .palette:
                    let alpha = s[0] < writer.transparency.count ? writer.transparency[s[0]] : 255
                    rgba = Array(writer.palette[s[0] * 3..<s[0] * 3 + 3]) + [alpha]
                }
                if let gamma = writer.gamma {
                    let exponent = 45_455 / Double(gamma)
                    for channel in 0..<3 { rgba[channel] = UInt8((255 * pow(Double(rgba[channel]) / 255, exponent)).rounded()) }
                }
                expected += rgba
            }
        }
        let file = name + ".png"
        try keep(file, writer.data(samples: samples))
        add(Fixture(name: name, file: file, mime: "image/png", reference: nil, width: image.width, height: image.height,
                    tolerance: tolerance ?? (depth == 16 ? 1 : 0)), expected: expected)
    }
}
