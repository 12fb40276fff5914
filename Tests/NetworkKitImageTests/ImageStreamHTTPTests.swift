import FixtureServer
import Foundation
import NetworkKit
import NetworkKitNIO
import Testing
@testable import NetworkKitImage

/// Image streams over real HTTP from the fixture server's drip route, on both transports:
/// previews come while the server still holds back the rest of the file, the final image is the
/// whole-body decode, and a cut-off body fails with the last preview.
@Suite("Image streams over HTTP")
struct ImageStreamHTTPTests {
    enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case urlSession = "URLSession"
        case nio = "NIO"

        var testDescription: String { rawValue }

        /// A service on `server` sending through this transport, handlers on a private queue.
        func service(_ server: FixtureServer) -> Service {
            let configuration = ServiceConfiguration(baseURL: server.baseURL)
            switch self {
            case .urlSession: return Service(configuration: configuration)
            case .nio: return Service(configuration: configuration, transport: NIOTransport())
            }
        }
    }

    /// The whole-body decode of `data`, which the final image must equal.
    private func wholeBody(_ data: Data, mimeType: String) throws -> DecodedImage {
        try ImageStreamFeeding.wholeBody(data, mimeType: mimeType)
    }

    @Test(arguments: Transport.allCases)
    func previewsArriveWhileTheServerHoldsTheRest(transport: Transport) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let service = transport.service(server)
        let data = FixtureImages.progressiveJPEG
        let hold = data.count * 2 / 3
        let gate = UUID().uuidString
        // The server sends two thirds of the file, then waits for the gate, which this test opens
        // only once a preview has arrived: the preview cannot have come from the rest.
        let request = StreamRequest(path: "/images/drip/progressive.jpg?chunk=256&interval=0&hold=\(hold)&gate=\(gate)", parser: IncrementalImageParser())
        var items: [ImageStreamItem] = []
        for try await item in service.stream(request) {
            if items.isEmpty {
                #expect(!item.isFinal, "the first item was the final image")
                #expect(item.bytesReceived <= hold)
                _ = try await service.send(Request(path: "/images/gate/\(gate)", method: .post, parser: DataParser()))
            }
            items.append(item)
        }
        #expect(items.count >= 2)
        let final = try #require(items.last)
        #expect(final.isFinal && final.bytesReceived == data.count)
        #expect(ImageStreamFeeding.difference(final.image, try wholeBody(data, mimeType: "image/jpeg")) == nil)
    }

    @Test(arguments: Transport.allCases)
    func aDroppedConnectionFailsAfterThePreviews(transport: Transport) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let service = transport.service(server)
        let data = FixtureImages.progressiveJPEG
        let (hold, cut, gate) = (data.count / 2, data.count * 3 / 4, UUID().uuidString)
        // A preview comes before the server goes on to the cut: the gate opens only then.
        let request = StreamRequest(path: 
            "/images/drip/progressive.jpg?chunk=256&interval=0&hold=\(hold)&gate=\(gate)&cut=\(cut)", parser: IncrementalImageParser())
        var previews: [ImageStreamItem] = []
        do {
            for try await item in service.stream(request) {
                if previews.isEmpty {
                    _ = try await service.send(Request(path: "/images/gate/\(gate)", method: .post, parser: DataParser()))
                }
                previews.append(item)
            }
            Issue.record("the stream of a cut-off image ended without an error")
        } catch {
            #expect(!previews.isEmpty)
            #expect(previews.allSatisfy { !$0.isFinal })
            if case .transport = error {} else { Issue.record("expected a transport error, got \(error)") }
        }
    }

    @Test(arguments: Transport.allCases)
    func aBodyThatEndsBeforeTheImageFailsAfterThePreviews(transport: Transport) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let service = transport.service(server)
        let data = FixtureImages.progressiveJPEG
        let (hold, cut, gate) = (data.count / 2, data.count * 3 / 4, UUID().uuidString)
        let request = StreamRequest(path: 
            "/images/drip/progressive.jpg?chunk=256&interval=0&hold=\(hold)&gate=\(gate)&cut=\(cut)&end=short", parser: IncrementalImageParser())
        var previews: [ImageStreamItem] = []
        do {
            for try await item in service.stream(request) {
                if previews.isEmpty {
                    _ = try await service.send(Request(path: "/images/gate/\(gate)", method: .post, parser: DataParser()))
                }
                previews.append(item)
            }
            Issue.record("the stream of a cut-off image ended without an error")
        } catch {
            #expect(!previews.isEmpty && previews.allSatisfy { !$0.isFinal })
            guard case .parse(let parseError) = error else { Issue.record("got \(error)"); return }
            #expect(parseError.parser == "image" && parseError.reason.contains("Premature end of JPEG file"))
        }
    }

    @Test(arguments: Transport.allCases)
    func itemHandlersGetThePreviewsAndTheFinalImage(transport: Transport) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let service = transport.service(server)
        let hold = FixtureImages.progressiveJPEG.count * 2 / 3
        let gate = UUID().uuidString
        let request = StreamRequest(path: "/images/drip/progressive.jpg?chunk=512&interval=0&hold=\(hold)&gate=\(gate)", parser: IncrementalImageParser())
        let stages = Protected<[ImageStreamStage]>([])
        request.addItemHandler { _, item in
            let first = stages.withLock { stages in
                stages.append(item.stage)
                return stages.count == 1
            }
            // The rest of the file comes once the first preview was handled.
            if first { service.start(Request(path: "/images/gate/\(gate)", method: .post, parser: DataParser())) }
        }
        let summary: StreamSummary = try await withCheckedThrowingContinuation { continuation in
            request.addCompletionHandler { _, result in continuation.resume(with: result) }
            service.start(request)
        }
        let seen = stages.snapshot
        #expect(summary.itemCount == seen.count)
        #expect(seen.last == .final && seen.count >= 2)
        #expect(seen.first != .final)
    }

    @Test(arguments: Transport.allCases)
    func interlacedPNGPassesAndBaselineRowsOverHTTP(transport: Transport) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let service = transport.service(server)
        for (name, data, type) in [("interlaced.png", FixtureImages.interlacedPNG, "image/png"),
                                   ("baseline.jpg", FixtureImages.baselineJPEG, "image/jpeg")] {
            let (hold, gate) = (data.count / 2, UUID().uuidString)
            let parser = IncrementalImageParser(previews: ImagePreviewPolicy(sources: .all))
            let request = StreamRequest(path: "/images/drip/\(name)?chunk=1024&interval=0&hold=\(hold)&gate=\(gate)",
                                        parser: parser)
            var items: [ImageStreamItem] = []
            for try await item in service.stream(request) {
                if items.isEmpty {
                    #expect(!item.isFinal && item.bytesReceived <= hold, "\(name)")
                    _ = try await service.send(Request(path: "/images/gate/\(gate)", method: .post, parser: DataParser()))
                }
                items.append(item)
            }
            let final = try #require(items.last)
            #expect(ImageStreamFeeding.difference(final.image, try wholeBody(data, mimeType: type)) == nil, "\(name)")
        }
    }
}
