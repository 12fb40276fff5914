import Foundation

/// WebP fixtures: `cwebp` encodes PNGs written by `PNGWriter`, `dwebp` decodes the reference.
extension FixtureMaker {
    mutating func makeWebPs() throws {
        try keepPNG("webp_source.png", TestImage(width: 45, height: 31), alpha: false)
        try keepPNG("webp_source_alpha.png", TestImage(width: 45, height: 31), alpha: true)
        for (name, arguments) in [("webp_lossy", ["-q", "80", "webp_source.png"]),
                                  ("webp_lossless", ["-lossless", "webp_source_alpha.png"]),
                                  ("webp_alpha", ["-q", "70", "-alpha_q", "100", "webp_source_alpha.png"])] {
            try cwebp(arguments, to: name + ".webp")
            let decoded = try dwebp(name + ".webp", reference: name)
            add(Fixture(name: name, file: name + ".webp", mime: "image/webp", reference: nil,
                        width: decoded.width, height: decoded.height), expected: decoded.rgba)
        }

        try keepPNG("webp_large.png", TestImage(width: 160, height: 100), alpha: false)
        try cwebp(["-q", "80", "webp_large.png"], to: "webp_large.webp")
        let scaled = try dwebp("webp_large.webp", reference: "webp_scaled", options: ["-resize", "40", "25"])
        add(Fixture(name: "webp_scaled", file: "webp_large.webp", mime: "image/webp", reference: nil, width: scaled.width,
                    height: scaled.height, sourceWidth: 160, sourceHeight: 100, maxPixelSize: 40), expected: scaled.rgba)
    }

    private mutating func keepPNG(_ file: String, _ image: TestImage, alpha: Bool) throws {
        let writer = PNGWriter(width: image.width, height: image.height, colorType: alpha ? .rgba : .rgb, bitDepth: 8)
        try keep(file, writer.data { x, y in image.pixel(x, y).prefix(alpha ? 4 : 3).map(Int.init) })
    }

    private mutating func cwebp(_ arguments: [String], to file: String) throws {
        let input = arguments.last ?? ""
        try run(["cwebp", "-quiet"] + arguments.dropLast() + [path(input), "-o", path(file)])
        try keepWritten(file)
    }

    private mutating func dwebp(_ file: String, reference name: String, options: [String] = []) throws -> TestImage {
        let output = referenceOutput(name)
        return try reference(name, from: ["dwebp", "-quiet", path(file)] + options + ["-pam", "-o", output])
    }
}
