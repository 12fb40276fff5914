import Foundation
import Testing
import FixtureServer
import NetworkKit
@testable import NetworkKitImage

/// Images fetched over real HTTP from the fixture server, through the service's parser chain.
@Suite("Image requests over HTTP")
struct ImageRequestTests {
    static let cases = ["png_rgba8", "jpeg_progressive", "webp_alpha"]

    private func serve(_ name: String) async throws -> (FixtureServer, Service, Fixture) {
        let fixture = try #require(try Fixtures.named(name))
        let server = try await FixtureServer.start()
        server.publish(try Fixtures.data(fixture.file), as: name, contentType: fixture.mime)
        return (server, service(for: server), fixture)
    }

    /// A service on `server` whose handlers run on a private queue.
    private func service(for server: FixtureServer, maxDecompressedBytes: Int64? = nil) -> Service {
        var configuration = ServiceConfiguration(baseURL: server.baseURL)
        if let maxDecompressedBytes { configuration.maxDecompressedBytes = maxDecompressedBytes }
        return Service(configuration: configuration)
    }

    @Test(arguments: cases)
    func rightMissingGenericAndWrongContentType(name: String) async throws {
        let (server, service, fixture) = try await serve(name)
        defer { server.stop() }
        // Right type, no type, a generic type, and a wrong image type: all decode by content.
        for query in ["", "?type=none", "?type=application/octet-stream", "?type=image/gif",
                      name.hasPrefix("png") ? "?type=image/jpeg" : "?type=image/png"] {
            let image = try await service.send(Request(path: "/blob/\(name)\(query)", parser: ImageParser()))
            #expect(image.width == fixture.width && image.height == fixture.height, "\(query)")
            let reference = try Fixtures.data(try #require(fixture.reference))
            #expect(maxDifference(image.pixels, [UInt8](reference)).map { $0 <= fixture.tolerance } == true, "\(query)")
        }
    }

    @Test func notAnImageIsAParseError() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        server.publish(Data("<html>nope</html>".utf8), as: "page", contentType: "text/html")
        let service = service(for: server)
        let result = await service.result(of: Request(path: "/blob/page", parser: ImageParser()))
        guard case .failure(.parse(let error)) = result else { Issue.record("got \(result)"); return }
        #expect(error.parser == "image")
    }

    @Test func thumbnailAndScaleFromTheURL() async throws {
        let (server, service, _) = try await serve("jpeg_baseline")
        defer { server.stop() }
        server.publish(try Fixtures.data("jpeg_large.jpg"), as: "photo@2x.jpg", contentType: "image/jpeg")
        let image = try await service.send(Request(path: "/blob/photo@2x.jpg", parser: ImageParser(maxPixelSize: 20)))
        #expect(max(image.width, image.height) == 20)
        #expect(image.sourceWidth == 200)
        #expect(image.scale == 2)
    }

    @Test func truncatedImageOverHTTPIsAnErrorNotACrash() async throws {
        let (server, service, fixture) = try await serve("jpeg_baseline")
        defer { server.stop() }
        let data = try Fixtures.data(fixture.file)
        server.publish(data.prefix(data.count / 2), as: "half", contentType: "image/jpeg")
        let result = await service.result(of: Request(path: "/blob/half", parser: ImageParser()))
        guard case .failure(.parse) = result else { Issue.record("got \(result)"); return }
    }

    @Test func requestBodyGzippedOnDemand() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let service = service(for: server)
        let request = Request(path: "/echo", method: .post, parser: JSONParser())
        let plain = Data(String(repeating: "NetworkKit ", count: 1000).utf8)
        request.body = .data(plain, contentType: "text/plain")
        request.bodyEncoding = .gzip
        let echo = try await service.send(request)
        #expect(echo["headers"]?["Content-Encoding"] == "gzip")
        let sent = try #require(echo["bodyLength"]?.intValue)
        #expect(sent > 0 && sent < Int64(plain.count / 10))
    }
}
