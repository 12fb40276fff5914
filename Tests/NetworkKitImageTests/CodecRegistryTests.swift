import Foundation
import NetworkKit
import NetworkKitImage
import Testing

/// Codec choice by Content-Type and magic bytes, and custom codecs.
@Suite struct CodecRegistryTests {
    let png: Data
    let jpeg: Data
    let webp: Data

    init() throws {
        png = try Fixtures.data("png_rgb8.png")
        jpeg = try Fixtures.data("jpeg_baseline.jpg")
        webp = try Fixtures.data("webp_lossy.webp")
    }

    @Test func defaultMIMETypes() {
        let registry = ImageCodecRegistry()
        #expect(registry.codec(forMIMEType: "image/png")?.format == .png)
        for type in ["image/jpeg", "image/jpg", "image/pjpeg", "IMAGE/JPEG; charset=binary"] {
            #expect(registry.codec(forMIMEType: type)?.format == .jpeg, "\(type)")
        }
        #expect(registry.codec(forMIMEType: "image/webp")?.format == .webp)
        #expect(registry.codec(forMIMEType: "image/gif") == nil)
    }

    @Test func missingOrGenericTypesAreSniffed() throws {
        let registry = ImageCodecRegistry()
        for type in [nil, "", "application/octet-stream", "binary/octet-stream"] as [String?] {
            #expect(try registry.codec(for: png, mimeType: type).format == .png)
            #expect(try registry.codec(for: jpeg, mimeType: type).format == .jpeg)
            #expect(try registry.codec(for: webp, mimeType: type).format == .webp)
        }
    }

    @Test func wrongContentTypeFallsBackToTheMatchingCodec() throws {
        let response = Response(url: nil, status: 200, headerFields: [.contentType: "image/png"], data: jpeg)
        #expect(try ImageParser().parse(response).format == .jpeg)
        #expect(try ImageCodecRegistry().codec(for: webp, mimeType: "image/jpeg").format == .webp)
    }

    @Test func unknownTypeIsAParseError() {
        let body = Data("<html></html>".utf8)
        let response = Response(url: nil, status: 200, headerFields: [.contentType: "image/xyz"], data: body)
        #expect {
            try ImageParser().parse(response)
        } throws: { error in
            guard let error = error as? ParseError else { return false }
            return error.parser == "image" && error.reason.hasPrefix("no codec for image/xyz (")
        }
    }

    @Test func customCodecThroughRegistryAndParser() throws {
        let registry = ImageCodecRegistry()
        registry.register(PPMCodec(), forMIMETypes: ["image/x-portable-pixmap"])
        let ppm = Data("P6\n2 1\n255\n".utf8) + Data([255, 0, 0, 0, 0, 255])
        #expect(registry.codec(forMIMEType: "image/x-portable-pixmap")?.format == "ppm")
        #expect(try registry.codec(for: ppm, mimeType: nil).format == "ppm")

        let response = Response(
            url: URL(string: "https://example.com/dot@2x.ppm"), status: 200,
            headerFields: [.contentType: "image/x-portable-pixmap"], data: ppm
        )
        let image = try ImageParser(registry: registry).parse(response)
        #expect(image.format == "ppm")
        #expect(image.pixels == [255, 0, 0, 255, 0, 0, 255, 255])
        #expect(image.scale == 2)
        // The shared registry does not know the custom format.
        #expect(throws: ParseError.self) { try ImageParser().parse(response) }
    }
}

/// A binary PPM (P6, maxval 255) codec: the smallest custom codec worth registering.
struct PPMCodec: ImageCodec {
    var format: ImageFormat { "ppm" }

    func canDecode(_ data: Data) -> Bool {
        data.starts(with: Array("P6".utf8))
    }

    func decode(_ data: Data, options: ImageDecodingOptions) throws -> DecodedImage {
        let bytes = [UInt8](data)
        var fields: [Int] = []
        var index = 2
        while fields.count < 3 {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A { index += 1 }
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            guard index > start, let value = Int(String(decoding: bytes[start..<index], as: UTF8.self)) else {
                throw ParseError(parser: "image", reason: "bad PPM header")
            }
            fields.append(value)
        }
        let (width, height) = (fields[0], fields[1])
        try options.checkSourceSize(width: width, height: height, format: format)
        let body = bytes.dropFirst(index + 1)
        guard fields[2] == 255, body.count >= width * height * 3 else {
            throw ParseError(parser: "image", reason: "truncated PPM")
        }
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for pixel in 0..<width * height {
            let offset = body.startIndex + pixel * 3
            pixels += [body[offset], body[offset + 1], body[offset + 2], 255]
        }
        return try DecodedImage(width: width, height: height, pixels: pixels, scale: options.scale ?? 1, format: format)
    }
}
