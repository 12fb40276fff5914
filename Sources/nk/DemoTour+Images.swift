import FixtureServer
import Foundation
import NetworkKit
import NetworkKitImage

extension DemoTour {
    /// Image steps: a PNG made here (libpng encode) and served with right, missing and wrong types.
    var imageSteps: [Step] {
        [
            ("Image: PNG decoded by the codec registered for image/png", {
                try publishSamplePNG()
                let image = try await service.send(Request(path: "/blob/sample@2x.png", parser: ImageParser()))
                return "\(image.format) \(image.width)×\(image.height) px @\(Int(image.scale))x (scale from the URL), \(image.pixels.count) RGBA bytes"
            }),
            ("Image: missing and wrong Content-Type resolved by sniffing magic bytes", {
                let missing = try await service.send(Request(path: "/blob/sample@2x.png?type=none", parser: ImageParser()))
                let wrong = try await service.send(Request(path: "/blob/sample@2x.png?type=image/jpeg", parser: ImageParser()))
                return "no Content-Type → \(missing.format); \"image/jpeg\" on PNG bytes → \(wrong.format)"
            }),
            ("Image: thumbnail decode with maxPixelSize 64", {
                let thumb = try await service.send(Request(path: "/blob/sample@2x.png", parser: ImageParser(maxPixelSize: 64)))
                return "\(thumb.sourceWidth)×\(thumb.sourceHeight) source → \(thumb.width)×\(thumb.height) thumbnail"
            }),
            ("Image as it arrives: a progressive JPEG's previews scan by scan, then the final image", {
                let request = StreamRequest(path: "/images/drip/progressive.jpg?chunk=1024&interval=5", parser: IncrementalImageParser())
                var previews: [ImageStreamItem] = []
                var final: ImageStreamItem?
                for try await item in service.stream(request) {
                    if item.isFinal { final = item } else { previews.append(item) }
                }
                guard let final, let first = previews.first else { throw DemoError.unexpected("no preview before the final image") }
                return "\(previews.count) previews (first: \(first.image.width)×\(first.image.height) px after "
                    + "\(first.bytesReceived) of \(final.bytesReceived) bytes), then \(final.image.width)×\(final.image.height) px"
            }),
            ("Image: not an image is a typed parse error", {
                try await failure(of: Request(path: "/html", parser: ImageParser())) { if case .parse = $0 { true } else { false } }
            }),
            ("gzip request body on demand; a gzip answer inflated once, as its header says", {
                let request = Request(path: "/echo", method: .post, parser: JSONParser(contentKeyPath: "bodyLength"))
                request.body = .data(Data(String(repeating: "NetworkKit ", count: 1000).utf8), contentType: "text/plain")
                request.bodyEncoding = .gzip
                let sent = try await service.send(request)
                let json = Data(#"{"content": "inflated by NetworkKit"}"#.utf8)
                let once = try Decompressor.compress(json, coding: .gzip)
                server.publish(once, as: "gzipped.json", contentType: "application/json")
                let text = try await service.send(Request(path: "/blob/gzipped.json?encoding=gzip",
                                                          parser: JSONParser(contentKeyPath: "content")))
                // A .gz file served with Content-Encoding: gzip arrives as the .gz file.
                server.publish(try Decompressor.compress(once, coding: .gzip), as: "file.gz", contentType: "application/gzip")
                let file = try await service.send(Request(path: "/blob/file.gz?encoding=gzip"))
                guard file == once else { throw DemoError.unexpected("the .gz file arrived as \(file.count) other bytes") }
                return "11000-byte body sent as \(sent) gzip bytes; gzip answer → \(text); a .gz file served gzipped → the .gz file"
            }),
        ]
    }

    /// A 640×400 gradient with alpha, encoded as PNG and served at `/blob/sample@2x.png`.
    private func publishSamplePNG() throws {
        let width = 640, height = 400
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                pixels[offset] = UInt8(x * 255 / (width - 1))
                pixels[offset + 1] = UInt8(y * 255 / (height - 1))
                pixels[offset + 2] = 128
                pixels[offset + 3] = UInt8(128 + (x + y) % 128)
            }
        }
        let image = try DecodedImage(width: width, height: height, pixels: pixels, format: .png)
        server.publish(try image.pngData(), as: "sample@2x.png", contentType: "image/png")
    }
}
