import FixtureServer
import Foundation

/// JPEG fixtures: `cjpeg` encodes, `djpeg` (the same libjpeg-turbo the codec links) decodes the
/// reference, so the codec must match it byte for byte.
extension FixtureMaker {
    mutating func makeJPEGs() throws {
        try keep("jpeg_source.ppm", TestImage(width: 61, height: 47).ppm)
        for (name, arguments) in [("jpeg_baseline", ["-quality", "90"]), ("jpeg_progressive", ["-quality", "85", "-progressive"]),
                                  ("jpeg_gray", ["-quality", "90", "-grayscale"])] {
            try cjpeg(arguments, from: "jpeg_source.ppm", to: name + ".jpg")
            try addDecodedByDjpeg(Fixture(name: name, file: name + ".jpg", mime: "image/jpeg", reference: nil, width: 0, height: 0))
        }

        for (name, size, orientation) in [("jpeg_exif6", (40, 30), 6), ("jpeg_exif8", (16, 16), 8)] {
            try keep(name + ".ppm", TestImage(width: size.0, height: size.1).ppm)
            try cjpeg(["-quality", "90"], from: name + ".ppm", to: name + ".jpg")
            try keep(name + ".jpg", Self.insertingEXIF(orientation: orientation, into: set.files[name + ".jpg"] ?? Data()))
            try addDecodedByDjpeg(Fixture(name: name, file: name + ".jpg", mime: "image/jpeg", reference: nil,
                                          width: 0, height: 0, orientation: orientation))
        }

        // DCT-scaled decodes: maxPixelSize equal to the scaled size, compared with djpeg -scale.
        try keep("jpeg_large.ppm", TestImage(width: 200, height: 152).ppm)
        try cjpeg(["-quality", "90"], from: "jpeg_large.ppm", to: "jpeg_large.jpg")
        for (fraction, maxSize) in [("1/8", 25), ("1/2", 100), ("3/8", 75)] {
            try addDecodedByDjpeg(Fixture(name: "jpeg_scaled_" + fraction.replacingOccurrences(of: "/", with: "_"),
                                          file: "jpeg_large.jpg", mime: "image/jpeg", reference: nil, width: 0, height: 0,
                                          sourceWidth: 200, sourceHeight: 152, maxPixelSize: maxSize),
                                  options: ["-scale", fraction])
        }
        set.fixtures.append(Fixture(name: "jpeg_thumb", file: "jpeg_large.jpg", mime: "image/jpeg", reference: nil,
                                    width: 20, height: 15, sourceWidth: 200, sourceHeight: 152, maxPixelSize: 20))

        // A progressive file whose last scan is repeated 600 times: refused past 500 scans.
        let progressive = try Data(contentsOf: URL(fileURLWithPath: path("jpeg_progressive.jpg")))
        if let lastScan = progressive.range(of: Data([0xFF, 0xDA]), options: .backwards)?.lowerBound {
            let scan = progressive[lastScan..<progressive.count - 2]
            var many = Data(progressive[..<lastScan])
            for _ in 0..<600 { many.append(scan) }
            many.append(contentsOf: [0xFF, 0xD9])
            try keep("jpeg_many_scans.jpg", many)
        }

        // SOF0 rewritten to claim 60 000 × 60 000.
        var huge = try Fixtures.dataOrThrow(set, "jpeg_baseline.jpg")
        if let sof = huge.range(of: Data([0xFF, 0xC0]))?.lowerBound {
            huge.replaceSubrange(sof + 5..<sof + 9, with: [0xEA, 0x60, 0xEA, 0x60])
            try keep("jpeg_huge_header.jpg", huge)
        }
    }

    /// Every layout of `Fixtures.eighthLayouts` at every size of `Fixtures.eighthSizes`.
    mutating func makeEighthScaleJPEGs() throws {
        for (width, height) in Fixtures.eighthSizes {
            let source = "eighth_\(width)x\(height).ppm"
            try keep(source, TestImage(width: width, height: height).ppm)
            for layout in Fixtures.eighthLayouts {
                try cjpeg(layout.arguments, from: source, to: "eighth_\(layout.name)_\(width)x\(height).jpg")
            }
        }
    }

    mutating func cjpeg(_ arguments: [String], from source: String, to file: String) throws {
        try run(["cjpeg"] + arguments + ["-outfile", path(file), path(source)])
        try keepWritten(file)
    }

    /// Adds `fixture` with djpeg's decode (with `options`) as its reference and size.
    private mutating func addDecodedByDjpeg(_ fixture: Fixture, options: [String] = []) throws {
        let output = referenceOutput(fixture.name)
        let decoded = try reference(fixture.name, from: ["djpeg"] + options + ["-pnm", "-outfile", output, path(fixture.file)])
        let sized = Fixture(name: fixture.name, file: fixture.file, mime: fixture.mime, reference: nil,
                            width: decoded.width, height: decoded.height, sourceWidth: fixture.maxPixelSize == nil ? nil : fixture.sourceWidth,
                            sourceHeight: fixture.maxPixelSize == nil ? nil : fixture.sourceHeight, orientation: fixture.orientation,
                            maxPixelSize: fixture.maxPixelSize)
        add(sized, expected: decoded.rgba)
    }

    /// `jpeg` with an APP1 Exif segment holding one Orientation tag, placed after the JFIF APP0.
    static func insertingEXIF(orientation: Int, into jpeg: Data) -> Data {
        var tiff = Data("MM".utf8) + Data([0x00, 0x2A]) // big-endian TIFF
        tiff.appendBigEndian(8)                           // first IFD right after the header
        tiff += Data([0x00, 0x01])                        // one entry:
        tiff += Data([0x01, 0x12, 0x00, 0x03])            // Orientation, SHORT
        tiff.appendBigEndian(1)                           // one value,
        tiff += Data([0x00, UInt8(orientation), 0x00, 0x00])
        tiff.appendBigEndian(0)                           // no next IFD
        let payload = Data("Exif".utf8) + Data([0, 0]) + tiff
        let segment = Data([0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)]) + payload
        let bytes = [UInt8](jpeg)
        var insertAt = 2
        if bytes.count > 6, bytes[2] == 0xFF, bytes[3] == 0xE0 { insertAt = 4 + Int(bytes[4]) << 8 + Int(bytes[5]) }
        return Data(bytes[..<insertAt]) + segment + Data(bytes[insertAt...])
    }
}

extension Fixtures {
    /// A file of a set being made.
    static func dataOrThrow(_ set: FixtureSet, _ file: String) throws -> Data {
        guard let data = set.files[file] else { throw FixtureError(description: "no fixture file named \(file)") }
        return data
    }
}
