import Foundation
@testable import FixtureServer
@testable import NetworkKit
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The fixture server's streaming routes seen without the kit: through `URLSession.shared`, and
/// as the bytes and chunks on the wire (`RawHTTP`).
@Suite("Fixture stream routes")
struct FixtureStreamRoutesTests {
    /// A stream name no other test shares.
    static func name(_ test: String) -> String {
        "\(test)-\(UUID().uuidString.prefix(8))"
    }

    struct Tick: Decodable, Equatable {
        var n: Int
        var connection: Int
        var auth: String
    }

    /// One event block of a body: its fields in order (`name`, `value`), comments left out.
    typealias Block = [(name: String, value: String)]

    /// The blocks of an event-stream body that end in a blank line (every line ends in LF here).
    static func blocks(_ body: Data) -> [Block] {
        let text = String(decoding: body, as: UTF8.self)
        return text.components(separatedBy: "\n\n").dropLast().map { block in
            block.split(separator: "\n").compactMap { line -> (name: String, value: String)? in
                guard !line.hasPrefix(":"), let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), String(line[line.index(after: colon)...].dropFirst()))
            }
        }.filter { !$0.isEmpty }
    }

    /// The ticks of the event blocks, their data lines joined by LF as a parser joins them.
    static func ticks(_ body: Data) -> [Tick] {
        blocks(body).filter { $0.contains { $0.name == "id" } }.compactMap { block in
            let data = block.filter { $0.name == "data" }.map(\.value).joined(separator: "\n")
            return try? JSONDecoder().decode(Tick.self, from: Data(data.utf8))
        }
    }

    static func get(_ server: FixtureServer, _ path: String, headers: [String: String] = [:]) async throws
        -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: URL(string: server.url(path))!)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return (data, response as! HTTPURLResponse)
    }

    @Test("/events: the events in order, their data, the headers, and retry first")
    func events() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let (body, response) = try await Self.get(server, "/events?count=3&retry=30&stream=\(Self.name("e"))",
                                                  headers: ["Authorization": #"Bearer "t""#])
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/event-stream; charset=utf-8")
        #expect(response.value(forHTTPHeaderField: "Cache-Control") == "no-cache")
        let blocks = Self.blocks(body)
        #expect(blocks.first?.map(\.name) == ["retry"])
        #expect(blocks.first?.first?.value == "30")
        #expect(blocks.dropFirst().map { $0.map(\.name) } == Array(repeating: ["id", "event", "data"], count: 3))
        #expect(blocks.dropFirst().map { $0[0].value } == ["1", "2", "3"])
        #expect(blocks.dropFirst().allSatisfy { $0[1].value == "tick" })
        #expect(Self.ticks(body) == (1...3).map { Tick(n: $0, connection: 1, auth: #"Bearer "t""#) })
    }

    @Test("/events: Last-Event-ID continues after it; multiline=1 splits the data in two lines")
    func lastEventID() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let (body, _) = try await Self.get(server, "/events?count=5&multiline=1&stream=\(Self.name("l"))",
                                           headers: ["Last-Event-ID": "2"])
        #expect(Self.ticks(body).map(\.n) == [3, 4, 5])
        #expect(Self.blocks(body).allSatisfy { $0.filter { $0.name == "data" }.count == 2 })
    }

    @Test("/events: close_after ends each connection; the connections are counted; 204 or an empty stream once done")
    func closeAfter() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let path = "/events?count=5&close_after=2&stream=\(Self.name("c"))"
        var seen: [Tick] = []
        for lastID in [nil, "2", "4"] {
            let (body, _) = try await Self.get(server, path, headers: lastID.map { ["Last-Event-ID": $0] } ?? [:])
            seen += Self.ticks(body)
        }
        #expect(seen.map(\.n) == [1, 2, 3, 4, 5])
        #expect(seen.map(\.connection) == [1, 1, 2, 2, 3])
        let (done, response) = try await Self.get(server, path, headers: ["Last-Event-ID": "5"])
        #expect(response.statusCode == 204)
        #expect(done.isEmpty)
        let (closed, closedResponse) = try await Self.get(server, path + "&done=close", headers: ["Last-Event-ID": "5"])
        #expect(closedResponse.statusCode == 200)
        #expect(closedResponse.value(forHTTPHeaderField: "Content-Type") == "text/event-stream; charset=utf-8")
        #expect(closed.isEmpty)
    }

    @Test("/events: comments while waiting between events")
    func heartbeats() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let (body, _) = try await Self.get(server, "/events?count=2&interval=150&comment_every=40&stream=\(Self.name("h"))")
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.components(separatedBy: ": ping\n\n").count - 1 == 3)   // at 40, 80 and 120 ms
        #expect(Self.ticks(body).map(\.n) == [1, 2])
    }

    @Test("/events/drop: half an event, then the connection is lost; the next connection resumes and ends with 204")
    func drop() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let path = "/events/drop?count=6&stream=\(Self.name("d"))"
        let first = try await RawHTTP.get(port: server.port, path: path)
        #expect(first.status == 200)
        #expect(!first.complete)   // no last chunk: an abort, not a clean end
        let text = String(decoding: first.body, as: UTF8.self)
        #expect(text.hasSuffix("\n\nid: 4\ndata: partial\n"))
        #expect(Self.ticks(first.body).map(\.n) == [1, 2, 3])
        let (rest, _) = try await Self.get(server, path, headers: ["Last-Event-ID": "3"])
        #expect(Self.ticks(rest).map(\.n) == [4, 5, 6])
        #expect(Self.ticks(rest).allSatisfy { $0.connection == 2 })
        let (_, done) = try await Self.get(server, path, headers: ["Last-Event-ID": "6"])
        #expect(done.statusCode == 204)
        // URLSession reports the loss as an error, or at most hands over the bytes before it.
        if let (cut, _) = try? await Self.get(server, "/events/drop?count=2&stream=\(Self.name("d2"))") {
            #expect(String(decoding: cut, as: UTF8.self).hasSuffix("data: partial\n"))
        }
    }

    @Test("/events/status/{code}, /events/wrong-type and /events/no-content")
    func refusals() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let (status, statusResponse) = try await Self.get(server, "/events/status/503")
        #expect(statusResponse.statusCode == 503)
        #expect(String(decoding: status, as: UTF8.self) == "status 503\n")
        let (wrong, wrongResponse) = try await Self.get(server, "/events/wrong-type")
        #expect(wrongResponse.statusCode == 200)
        #expect(wrongResponse.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        #expect(Self.blocks(wrong).first?.first?.name == "id")
        let (empty, emptyResponse) = try await Self.get(server, "/events/no-content")
        #expect(emptyResponse.statusCode == 204)
        #expect(empty.isEmpty)
    }

    @Test("/events/gzip: each event's compressed bytes inflate to that whole event")
    func gzip() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let raw = try await RawHTTP.get(port: server.port, path: "/events/gzip?count=4&retry=10",
                                        headers: ["Accept-Encoding": "gzip"])
        #expect(raw.headers["content-encoding"] == "gzip")
        #expect(raw.complete)
        // Chunks: the retry block, the four events, then the gzip trailer.
        #expect(raw.chunks.count == 6)
        let inflater = StreamingInflater(coding: .gzip)
        var text = ""
        var completeEvents: [Int] = []
        for chunk in raw.chunks {
            try inflater.inflate(Data(chunk)) { text += String(decoding: $0, as: UTF8.self) }
            #expect(text.hasSuffix("\n\n"))
            completeEvents.append(Self.ticks(Data(text.utf8)).count)
        }
        try inflater.finish()
        #expect(completeEvents == [0, 1, 2, 3, 4, 4])
        // URLSession inflates it whole.
        let (body, _) = try await Self.get(server, "/events/gzip?count=4")
        #expect(Self.ticks(body).map(\.n) == [1, 2, 3, 4])
    }

    @Test("/events/many in 64 KiB writes; /events/clock's data is the server's uptime in ns")
    func manyAndClock() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let many = try await RawHTTP.get(port: server.port, path: "/events/many?count=5000&size=20")
        #expect(many.complete)
        #expect(many.chunks.first.map { $0.count >= 64 * 1024 } == true)
        let lines = String(decoding: many.body, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 5000)
        #expect(lines.allSatisfy { $0.hasPrefix("data: ") && $0.count == 26 })
        #expect(lines.first == "data: 1xxxxxxxxxxxxxxxxxxx")

        let before = DispatchTime.now().uptimeNanoseconds
        let clock = try await RawHTTP.get(port: server.port, path: "/events/clock?count=3&interval=10")
        let after = DispatchTime.now().uptimeNanoseconds
        #expect(clock.chunks.count == 3)
        let times = Self.blocks(clock.body).compactMap { $0.first { $0.name == "data" }.flatMap { UInt64($0.value) } }
        #expect(times.count == 3)
        #expect(times == times.sorted())
        #expect(times.allSatisfy { $0 >= before && $0 <= after })
    }

    @Test("/jsonl with fail_at, /jsonl/bytes and /jsonseq")
    func jsonLines() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let (body, response) = try await Self.get(server, "/jsonl?count=5&fail_at=4")
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/jsonl")
        #expect(String(decoding: body, as: UTF8.self).split(separator: "\n") == [
            #"{"code":0,"data":{"id":1,"name":"item 1"}}"#,
            #"{"code":0,"data":{"id":2,"name":"item 2"}}"#,
            #"{"code":0,"data":{"id":3,"name":"item 3"}}"#,
            #"{"code":7,"message":"line 4 is bad"}"#,
            #"{"code":0,"data":{"id":5,"name":"item 5"}}"#,
        ])

        let bytes = try await RawHTTP.get(port: server.port, path: "/jsonl/bytes?mb=1")
        #expect(bytes.complete)
        #expect(bytes.body.count >= 1 << 20 && bytes.body.count < (1 << 20) + 100)
        #expect(bytes.chunks.dropLast().allSatisfy { $0.count >= 64 * 1024 && $0.count < 64 * 1024 + 100 })
        let lines = String(decoding: bytes.body, as: UTF8.self).split(separator: "\n")
        #expect(bytes.body.last == UInt8(ascii: "\n"))
        #expect(lines.last == #"{"code":0,"data":{"id":\#(lines.count),"name":"item \#(lines.count)"}}"#)

        let (sequence, sequenceResponse) = try await Self.get(server, "/jsonseq?count=3")
        #expect(sequenceResponse.value(forHTTPHeaderField: "Content-Type") == "application/json-seq")
        let records = sequence.split(separator: 0x1E, omittingEmptySubsequences: false)
        #expect(records.first?.isEmpty == true)
        #expect(records.dropFirst().map { String(decoding: $0, as: UTF8.self) } == (1...3).map {
            #"{"code":0,"data":{"id":\#($0),"name":"item \#($0)"}}"# + "\n"
        })
    }

    @Test("/lines/utf8: the text's bytes, in pieces cut inside characters and between CR and LF")
    func utf8Lines() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let (body, _) = try await Self.get(server, "/lines/utf8")
        #expect(body == Data(Utf8Lines.text.utf8))
        let text = Utf8Lines.text
        #expect(["\u{E9}", "\u{20AC}", "\u{1F600}"].allSatisfy { text.contains($0) })
        let bytes = Array(text.utf8)
        let pairs = Array(zip(bytes, bytes.dropFirst()))
        #expect(pairs.contains { $0 == (0x0D, 0x0A) })           // CRLF
        #expect(pairs.contains { $0.0 == 0x0D && $0.1 != 0x0A })  // a CR alone
        #expect(pairs.contains { $0.0 != 0x0D && $0.1 == 0x0A })  // an LF alone
        let raw = try await RawHTTP.get(port: server.port, path: "/lines/utf8?interval=0")
        #expect(raw.chunks == Utf8Lines.pieces)
        // Every multi-byte character is cut in two (or three) somewhere inside it.
        let cuts = Set(raw.chunks.reduce(into: [0]) { $0.append($0.last! + $1.count) })
        var offset = 0
        for scalar in text.unicodeScalars {
            let length = String(scalar).utf8.count
            if length > 1 { #expect((offset + 1 ..< offset + length).contains { cuts.contains($0) }, "\(scalar) is whole") }
            offset += length
        }
        #expect(zip(raw.chunks, raw.chunks.dropFirst()).contains { $0.last == 0x0D && $1.first == 0x0A })
    }

    @Test("/drip: the bytes, the writes' size, the type")
    func drip() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let started = ContinuousClock.now
        let (body, response) = try await Self.get(server, "/drip?bytes=300&chunk=100&interval=20&type=text/csv")
        #expect(started.duration(to: .now) >= .milliseconds(40))
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/csv")
        #expect(body.count == 300)
        #expect(body.last == UInt8(ascii: "\n"))
        #expect(body.allSatisfy { $0 == 0x0A || (0x21...0x7E).contains($0) })
        #expect(body.split(separator: 0x0A).dropLast().allSatisfy { $0.count == 63 })
        let (again, _) = try await Self.get(server, "/drip?bytes=300&chunk=7&interval=0")
        #expect(again == body)
    }
}

/// A bare HTTP/1.1 client: one GET with `Connection: close`, read until the server closes, the
/// answer's chunks kept as they were framed.
enum RawHTTP {
    struct Answer {
        var status: Int
        /// Header fields by lowercased name.
        var headers: [String: String]
        /// The chunks of a chunked body (empty for another framing).
        var chunks: [[UInt8]]
        /// The body's bytes (a last chunk cut short included).
        var body: Data
        /// Whether a chunked body got its last chunk (true for another framing).
        var complete: Bool
    }

    struct Failure: Error {
        var reason: String
    }

    static func get(port: Int, path: String, headers: [String: String] = [:]) async throws -> Answer {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        let sent = request
        // The blocking reads run on a thread of their own: on a Dispatch thread (or the
        // concurrency pool) they would hold up the server's work until Dispatch adds threads.
        let bytes = try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try exchange(port: port, request: Array(sent.utf8)) })
            }.start()
        }
        return try parse(bytes)
    }

    private static func exchange(port: Int, request: [UInt8]) throws -> [UInt8] {
        #if os(Linux)
        let socketType = Int32(SOCK_STREAM.rawValue)
        #else
        let socketType = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, socketType, 0)
        guard descriptor >= 0 else { throw Failure(reason: "socket") }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(reason: "connect") }
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw Failure(reason: "send")
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return received }
            guard count > 0 else {
                // A reset after the bytes counts as the end; a timeout does not.
                if errno == ECONNRESET { return received }
                throw Failure(reason: "recv errno \(errno)")
            }
            received += buffer.prefix(count)
        }
    }

    private static func parse(_ bytes: [UInt8]) throws -> Answer {
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { throw Failure(reason: "no head") }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = head.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let rest = Array(bytes[end.upperBound...])
        guard headers["transfer-encoding"]?.lowercased() == "chunked" else {
            return Answer(status: status, headers: headers, chunks: [], body: Data(rest), complete: true)
        }
        var chunks: [[UInt8]] = []
        var index = 0
        while let lineEnd = rest[index...].firstRange(of: Array("\r\n".utf8)) {
            let sizeText = String(decoding: rest[index..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.prefix { $0 != ";" }, radix: 16) else { throw Failure(reason: "chunk size \(sizeText)") }
            if size == 0 {
                return Answer(status: status, headers: headers, chunks: chunks, body: Data(chunks.joined()), complete: true)
            }
            let start = lineEnd.upperBound
            guard start + size + 2 <= rest.count else {
                chunks.append(Array(rest[start..<min(rest.count, start + size)]))
                break
            }
            chunks.append(Array(rest[start..<start + size]))
            index = start + size + 2
        }
        return Answer(status: status, headers: headers, chunks: chunks, body: Data(chunks.joined()), complete: false)
    }
}
