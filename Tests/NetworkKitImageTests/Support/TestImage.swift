import FixtureServer
import Foundation

/// An RGBA8 picture the fixtures are made from: a gradient with noise, so codecs have real
/// content to get right. The same size and seed give the same pixels on every machine.
struct TestImage {
    let width: Int
    let height: Int
    /// Rows of RGBA8, no padding.
    var rgba: [UInt8]

    init(width: Int, height: Int, seed: UInt64 = 1234) {
        self.width = width
        self.height = height
        var random = SeededGenerator(seed: seed &+ UInt64(width * 65_536 + height))
        var rgba = [UInt8]()
        rgba.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                rgba.append(UInt8(x * 255 / max(width - 1, 1)))
                rgba.append(UInt8(y * 255 / max(height - 1, 1)))
                rgba.append(UInt8((x * y + Int.random(in: 0..<40, using: &random)) % 256))
                rgba.append(UInt8((x * 7 + y * 3) % 256))
            }
        }
        self.rgba = rgba
    }

    init(width: Int, height: Int, rgba: [UInt8]) {
        self.width = width
        self.height = height
        self.rgba = rgba
    }

    /// The pixel at (x, y) as four channels.
    func pixel(_ x: Int, _ y: Int) -> ArraySlice<UInt8> {
        let start = (y * width + x) * 4
        return rgba[start..<start + 4]
    }

    /// Luma of (x, y) with ITU-R 601 weights, as the grayscale fixtures store it.
    func gray(_ x: Int, _ y: Int) -> UInt8 {
        let start = (y * width + x) * 4
        let red = Int(rgba[start]) * 299, green = Int(rgba[start + 1]) * 587, blue = Int(rgba[start + 2]) * 114
        return UInt8((red + green + blue) / 1000)
    }

    /// The same picture fully opaque (what an RGB file of it decodes to).
    var opaque: TestImage {
        var copy = self
        for index in stride(from: 3, to: copy.rgba.count, by: 4) { copy.rgba[index] = 255 }
        return copy
    }

    /// A binary PPM (P6) of the RGB channels, for cjpeg.
    var ppm: Data {
        var data = Data("P6\n\(width) \(height)\n255\n".utf8)
        data.reserveCapacity(data.count + width * height * 3)
        for index in stride(from: 0, to: rgba.count, by: 4) { data.append(contentsOf: rgba[index..<index + 3]) }
        return data
    }
}

/// Reads the P5 (gray), P6 (RGB) and P7 (PAM, RGB_ALPHA or RGB) files that djpeg and dwebp
/// write, as RGBA8.
enum NetPBM {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func rgba(_ data: Data) throws -> TestImage {
        let bytes = [UInt8](data)
        var position = 0
        func token() throws -> String {
            while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x0A || bytes[position] == 0x09 { position += 1 }
            let start = position
            while position < bytes.count, !(bytes[position] == 0x20 || bytes[position] == 0x0A || bytes[position] == 0x09) { position += 1 }
            guard position > start else { throw Failure(description: "truncated NetPBM header") }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }
        let magic = try token()
        var width = 0, height = 0, channels = 0
        switch magic {
        case "P5", "P6":
            guard let w = Int(try token()), let h = Int(try token()), try token() == "255" else {
                throw Failure(description: "unsupported \(magic) header")
            }
            (width, height, channels) = (w, h, magic == "P5" ? 1 : 3)
        case "P7":
            var fields: [String: String] = [:]
            while true {
                let key = try token()
                if key == "ENDHDR" { break }
                fields[key] = try token()
            }
            guard let w = fields["WIDTH"].flatMap(Int.init), let h = fields["HEIGHT"].flatMap(Int.init),
                  let depth = fields["DEPTH"].flatMap(Int.init), fields["MAXVAL"] == "255" else {
                throw Failure(description: "unsupported PAM header \(fields)")
            }
            (width, height, channels) = (w, h, depth)
        default:
            throw Failure(description: "not a NetPBM file (\(magic))")
        }
        position += 1 // the single white-space byte before the samples
        guard bytes.count - position == width * height * channels else {
            throw Failure(description: "\(magic): \(bytes.count - position) sample bytes for \(width)×\(height)×\(channels)")
        }
        var rgba = [UInt8]()
        rgba.reserveCapacity(width * height * 4)
        for pixel in 0..<width * height {
            let p = position + pixel * channels
            switch channels {
            case 1: rgba += [bytes[p], bytes[p], bytes[p], 255]
            case 3: rgba += [bytes[p], bytes[p + 1], bytes[p + 2], 255]
            default: rgba += bytes[p..<p + 4]
            }
        }
        return TestImage(width: width, height: height, rgba: rgba)
    }
}
