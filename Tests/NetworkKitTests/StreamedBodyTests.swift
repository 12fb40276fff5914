import Foundation
import Testing
import FixtureServer
@testable import NetworkKit
import NetworkKitTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Request bodies made as they are sent (`RequestBody.stream`), against the fixture server's
/// `/echo`, which answers the body it read and the header fields it got.
@Suite("Streamed request bodies")
struct StreamedBodyTests {
    /// `count` chunks of `size` bytes of `byte`, made as they are asked for.
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = [UInt8]
        var count = 4
        var size = 25_000
        var byte = UInt8(ascii: "s")
        /// The error thrown in place of the chunk after the first, if any.
        var failure: (any Error & Sendable)?

        func makeAsyncIterator() -> Iterator { Iterator(chunks: self) }

        struct Iterator: AsyncIteratorProtocol {
            let chunks: Chunks
            var made = 0

            mutating func next() async throws -> [UInt8]? {
                if made == 1, let failure = chunks.failure { throw failure }
                guard made < chunks.count else { return nil }
                made += 1
                return [UInt8](repeating: chunks.byte, count: chunks.size)
            }
        }
    }

    struct Broken: Error, Sendable {}

    /// A body that makes one chunk, says so, then waits until its task is cancelled.
    struct Endless: AsyncSequence, Sendable {
        typealias Element = Data
        let firstChunkTaken: AsyncStream<Void>.Continuation

        func makeAsyncIterator() -> Iterator { Iterator(firstChunkTaken: firstChunkTaken) }

        struct Iterator: AsyncIteratorProtocol {
            let firstChunkTaken: AsyncStream<Void>.Continuation
            var started = false

            mutating func next() async throws -> Data? {
                if !started {
                    started = true
                    return Data(repeating: 0x65, count: 1_000)
                }
                firstChunkTaken.yield()
                try await Task.sleep(for: .seconds(3_600))
                return nil
            }
        }
    }

    static func field(_ json: JSON, _ name: String) -> String? {
        json["headers"]?.objectValue?.first { $0.key.lowercased() == name }?.value.stringValue
    }

    @Test("a stream of known length arrives whole, with its Content-Length", arguments: TransportKind.allCases)
    func knownLength(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/echo", method: .post, parser: JSONParser())
        request.body = .stream(RequestBodyStream(Chunks(), length: 100_000), contentType: "text/plain")
        let json = try await fixture.service.send(request)
        #expect(json["bodyLength"]?.intValue == 100_000)
        #expect(json["body"]?.stringValue == String(repeating: "s", count: 100_000))
        #expect(Self.field(json, "content-length") == "100000")
        #expect(Self.field(json, "content-type") == "text/plain")
    }

    @Test("a stream of unknown length goes chunked on NIO and as a spooled file with a length on URLSession",
          arguments: TransportKind.allCases)
    func unknownLength(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/echo", method: .put, parser: JSONParser())
        request.body = .stream(RequestBodyStream(Chunks(count: 3, size: 7_000)), contentType: "application/octet-stream")
        let json = try await fixture.service.send(request)
        #expect(json["bodyLength"]?.intValue == 21_000)
        switch transport {
        case .nio:
            #expect(Self.field(json, "transfer-encoding") == "chunked")
            #expect(Self.field(json, "content-length") == nil)
        case .urlSession:
            #expect(Self.field(json, "content-length") == "21000")
        }
    }

    @Test("upload progress counts a stream's bytes against its declared length", arguments: TransportKind.allCases)
    func progress(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/echo", method: .post, parser: JSONParser())
        request.body = .stream(RequestBodyStream(Chunks(count: 8, size: 64 * 1024), length: 8 * 64 * 1024),
                               contentType: "application/octet-stream")
        let uploads = Recorder<TransferProgress>()
        request.addProgressHandler { _, value in
            if value.direction == .upload { uploads.append(value) }
        }
        _ = try await fixture.service.send(request)
        let last = try #require(uploads.all.last)
        #expect(last.completedBytes == 8 * 64 * 1024)
        #expect(last.totalBytes == Int64(8 * 64 * 1024))
    }

    @Test("a stream made once is not retried; one made again is", arguments: TransportKind.allCases)
    func retries(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let retry = RetryPolicy(maxRetries: 2, backoff: Backoff(initial: .zero, jitter: 0))

        let once = Request(path: "/flaky/once-\(transport)?failures=1", method: .post, parser: JSONParser())
        once.isIdempotent = true
        once.interceptors = [retry]
        once.body = .stream(RequestBodyStream(Chunks(count: 2, size: 10)), contentType: "text/plain")
        let failure = await fixture.service.result(of: once).failure
        guard case .httpStatus(503, _, _) = failure else {
            Issue.record("the first attempt's failure stands, got \(String(describing: failure))")
            return
        }
        #expect(fixture.server.hits.count("once-\(transport)") == 1, "sent once")

        let again = Request(path: "/flaky/again-\(transport)?failures=1", method: .post, parser: JSONParser())
        again.isIdempotent = true
        again.interceptors = [retry]
        again.body = .stream(RequestBodyStream(repeating: { Chunks(count: 2, size: 10) }), contentType: "text/plain")
        let json = try await fixture.service.send(again)
        #expect(json["hit"]?.intValue == 2)
    }

    @Test("a 307 asks again for a stream made once: a clear failure; a stream made again follows it",
          arguments: TransportKind.allCases)
    func redirects(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let once = Request(path: "/redirect?status=307&to=/echo", method: .post, parser: JSONParser())
        once.body = .stream(RequestBodyStream(Chunks(count: 2, size: 10)), contentType: "text/plain")
        let failure = await fixture.service.result(of: once).failure
        guard case .requestBodyStream(.alreadySent) = failure else {
            Issue.record("expected requestBodyStream(.alreadySent), got \(String(describing: failure))")
            return
        }
        #expect(failure?.description.contains("RequestBodyStream(length:repeating:)") == true, "the message says what to do")

        let again = Request(path: "/redirect?status=308&to=/echo", method: .post, parser: JSONParser())
        again.body = .stream(RequestBodyStream(length: 20, repeating: { Chunks(count: 2, size: 10) }), contentType: "text/plain")
        let json = try await fixture.service.send(again)
        #expect(json["method"]?.stringValue == "POST")
        #expect(json["bodyLength"]?.intValue == 20)

        let seeOther = Request(path: "/redirect?status=303&to=/echo", method: .post, parser: JSONParser())
        seeOther.body = .stream(RequestBodyStream(Chunks(count: 2, size: 10)), contentType: "text/plain")
        let answer = try await fixture.service.send(seeOther)
        #expect(answer["method"]?.stringValue == "GET", "a 303 goes on without the body, so a stream made once is no obstacle")
    }

    @Test("a sequence that misses or passes its declared length fails the request", arguments: TransportKind.allCases)
    func lengthMismatch(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        for (declared, sent) in [(30, 20), (15, 20)] as [(Int64, Int64)] {
            let request = Request(path: "/echo", method: .post, parser: JSONParser())
            request.body = .stream(RequestBodyStream(Chunks(count: 2, size: 10), length: declared), contentType: "text/plain")
            let failure = await fixture.service.result(of: request).failure
            guard case .requestBodyStream(.lengthMismatch(let saidDeclared, let saidSent)) = failure else {
                Issue.record("declared \(declared), sent \(sent): got \(String(describing: failure))")
                continue
            }
            #expect(saidDeclared == declared)
            #expect(saidSent == sent)
        }
    }

    @Test("an error the sequence throws fails the request with it", arguments: TransportKind.allCases)
    func sequenceFailure(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/echo", method: .post, parser: JSONParser())
        request.body = .stream(RequestBodyStream(Chunks(failure: Broken())), contentType: "text/plain")
        let failure = await fixture.service.result(of: request).failure
        guard case .requestBodyStream(.sequenceFailed(let error)) = failure else {
            Issue.record("expected sequenceFailed, got \(String(describing: failure))")
            return
        }
        #expect(error is Broken)
    }

    @Test("cancelling a request stops a stream that has not ended", arguments: TransportKind.allCases)
    func cancellation(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let (taken, firstChunkTaken) = AsyncStream<Void>.makeStream()
        let request = Request(path: "/echo", method: .post, parser: JSONParser())
        request.body = .stream(RequestBodyStream(Endless(firstChunkTaken: firstChunkTaken)), contentType: "text/plain")
        let result = Task { await fixture.service.result(of: request) }
        for await _ in taken { break }
        request.cancel()
        let failure = await result.value.failure
        #expect(failure?.isCancellation == true, "got \(String(describing: failure))")
    }

    @Test("bodyEncoding compresses a stream as it goes", arguments: TransportKind.allCases, [ContentCoding.gzip, .brotli, .zstd])
    func compressed(transport: TransportKind, coding: ContentCoding) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/echo", method: .post, parser: JSONParser())
        request.body = .stream(RequestBodyStream(Chunks(count: 10, size: 10_000), length: 100_000), contentType: "text/plain")
        request.bodyEncoding = coding
        let json = try await fixture.service.send(request)
        #expect(Self.field(json, "content-encoding") == coding.rawValue)
        let length = try #require(json["bodyLength"]?.intValue)
        #expect(length > 0 && length < 1_000, "100 000 equal bytes compress to a few hundred")
    }

    @Test("the compressed stream inflates back to the chunks it was made of")
    func deflatedChunks() async throws {
        for coding in ContentCoding.allCases {
            let plain = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 1_000) })
            let pieces = stride(from: 0, to: plain.count, by: 30_000).map { plain[$0..<min($0 + 30_000, plain.count)] }
            let stream = RequestBodyStream(length: Int64(plain.count), repeating: { Pieces(pieces: pieces) }).compressed(coding)
            #expect(stream.isRepeatable)
            #expect(stream.length == nil)
            for _ in 0..<2 {
                var reader = try stream.makeReader()
                var compressed = Data()
                while let chunk = try await reader.next() { compressed.append(chunk) }
                #expect(try Decompressor.inflate(compressed, coding: coding, limit: 1 << 20) == plain)
            }
        }
    }

    struct Pieces: AsyncSequence, Sendable {
        typealias Element = Data
        let pieces: [Data]
        func makeAsyncIterator() -> Iterator { Iterator(pieces: pieces[...]) }
        struct Iterator: AsyncIteratorProtocol {
            var pieces: ArraySlice<Data>
            mutating func next() async -> Data? { pieces.popFirst() }
        }
    }

    @Test("a stream made once reads once; copies are one stream; one made again reads each time")
    func identityAndReading() async throws {
        let once = RequestBodyStream(Chunks(count: 1, size: 3))
        let copy = once
        #expect(copy == once)
        #expect(once != RequestBodyStream(Chunks(count: 1, size: 3)))
        #expect(once.canBeSent)
        var reader = try once.makeReader()
        #expect(!once.canBeSent, "read once, a body made once cannot be sent again")
        #expect(try await reader.next() == Data("sss".utf8))
        #expect(try await reader.next() == nil)
        #expect(throws: NetworkError.self) { try copy.makeReader() }

        let again = RequestBodyStream(repeating: { Chunks(count: 1, size: 2) })
        for _ in 0..<3 {
            var reader = try again.makeReader()
            #expect(try await reader.next() == Data("ss".utf8))
        }
        #expect(again.canBeSent)
        #expect(OutgoingRequest.Body.stream(once) != .stream(again))
    }

    @Test("a signer cannot read a stream, and says why")
    func signing() throws {
        let request = try OutgoingRequest(method: .post, url: URL(string: "https://example.com/a")!,
                                          body: .stream(RequestBodyStream(Chunks())))
        #expect(throws: NetworkError.self) { try request.signingContent() }
    }

    @Test("StubTransport records a streamed body whole")
    func stub() async throws {
        let stub = StubTransport()
        stub.answer(.post, .path("/v1/upload"), with: .text("ok"))
        let (service, _) = StubTransportTests.service(stub)
        let request = Request(path: "/upload", method: .post, parser: StringParser())
        request.body = .stream(RequestBodyStream(Chunks(count: 2, size: 5)), contentType: "text/plain")
        #expect(try await service.send(request) == "ok")
        #expect(stub.requests.last?.body == Data(repeating: UInt8(ascii: "s"), count: 10))
    }
}
