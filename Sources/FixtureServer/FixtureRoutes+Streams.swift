import Dispatch
import Foundation
import Hummingbird
import NIOCore

extension FixtureRoutes {
    /// Bodies written a piece at a time, with real pauses between the writes: event streams, JSON
    /// Lines, JSON text sequences and slow text. No route holds a large body in memory; each
    /// write waits until the connection takes it (Hummingbird's writer applies backpressure).
    ///
    /// Event streams (`text/event-stream; charset=utf-8`, `Cache-Control: no-cache`):
    /// - `GET /events`: event `i` (1-based) is `id: i`, `event: tick` and
    ///   `data: {"n":i,"connection":C,"auth":"A"}`, where A is the request's `Authorization`
    ///   value (empty without one) and C counts the requests this route served for the same
    ///   `stream` value (requests without one share a counter). Query:
    ///   - `count` (default 5): the events in all;
    ///   - `interval` (ms, default 0): the pause between two events of a connection;
    ///   - `close_after`: each connection ends its body cleanly after this many events;
    ///   - `retry` (ms): a `retry: N` block comes first;
    ///   - `comment_every` (ms): while it waits between events, a `: ping` comment this often;
    ///   - `done` (`204`, the default, or `close`): what a request gets once every event was
    ///     sent: a 204, or a 200 event stream with an empty body;
    ///   - `multiline=1`: each event's data is split over two `data:` lines (`…"connection":C,`
    ///     and `"auth":"A"}`, joined by the parser's LF into the same JSON);
    ///   - `stream` (a name): the connection counter's key.
    ///
    ///   A `Last-Event-ID: K` header continues with event K + 1 (one that is not a number counts
    ///   as 0).
    /// - `GET /events/drop`: `/events` (same query; `count` defaults to 6) whose first connection
    ///   for its `stream`, after `count / 2` events, writes half of the next event K
    ///   (`id: K` and `data: partial`, without the blank line that would dispatch it) and aborts:
    ///   the chunked body never gets its last chunk, so a client sees a lost connection, not a
    ///   clean end. Later connections serve events as `/events` does (a 204 once done).
    /// - `GET /events/gzip`, `/events/br`, `/events/zstd`: `/events` (same query and header) with
    ///   that `Content-Encoding`, compressed as it is written; each event (and comment) is flushed
    ///   (`FlushingEncoder`), so it arrives whole without waiting for the end.
    /// - `GET /events/status/{code}`: that status, with a short `text/plain` body.
    /// - `GET /events/wrong-type`: 200, `text/plain`, with a body shaped like an event.
    /// - `GET /events/no-content`: 204.
    /// - `GET /events/many?count=N&size=S`: N events (default 1,000) of one `data:` line each
    ///   (the event's number padded with `x` to S bytes, default 16), written in batches of
    ///   64 KiB as fast as the connection takes them; then a clean end.
    /// - `GET /events/clock?count=N&interval=ms`: N events (default 10), `interval` ms apart
    ///   (default 0), event `i` being `id: i` and `data: T`, T the server's
    ///   `DispatchTime.now().uptimeNanoseconds` just before the write; one write per event.
    ///
    /// Other streams:
    /// - `GET /jsonl?count=N&interval=ms&fail_at=K`: `application/jsonl`, N lines (default 5),
    ///   one write each, `interval` ms apart (default 0); line i is
    ///   `{"code":0,"data":{"id":i,"name":"item i"}}`, except line K, which is
    ///   `{"code":7,"message":"line K is bad"}`.
    /// - `GET /jsonl/bytes?mb=M`: `application/jsonl`, such lines (none failing) numbered from 1
    ///   for about M MiB (default 1; the lines stop once M MiB are written), generated as they
    ///   are written, 64 KiB per write.
    /// - `GET /jsonseq?count=N&interval=ms`: `application/json-seq`, N records (default 5), each
    ///   RS, the JSON of a `/jsonl` line and LF, one write each.
    /// - `GET /drip?bytes=N&chunk=K&interval=ms&type=T`: N bytes (default 100, `Content-Length`
    ///   announced) of text: lines of printable ASCII, each ending in LF, the same for every
    ///   request, written K bytes at a time (default 1) with `interval` ms (default 500; `ms` is
    ///   accepted for it too) between two writes; `Content-Type` T (default `text/plain`).
    /// - `GET /lines/utf8?interval=ms`: `text/plain; charset=utf-8`, lines with 2-, 3- and
    ///   4-byte characters ending in LF, CRLF and CR (the body of ``Utf8Lines``), written in
    ///   pieces cut in the middle of characters and between a CR and its LF, `interval` ms apart
    ///   (default 5).
    static func addStreams(to router: Router<BasicRequestContext>) {
        let connections = HitCounter()
        router.get("events") { request, _ in
            eventStream(EventPlan(request, connection: connections.increment("events/" + EventPlan.stream(request))))
        }
        router.get("events/drop") { request, _ in
            var plan = EventPlan(request, connection: connections.increment("drop/" + EventPlan.stream(request)),
                                 defaultCount: 6)
            if plan.connection == 1 { plan.dropAfter = plan.count / 2 }
            return eventStream(plan)
        }
        for coding in [FixtureCoding.gzip, .br, .zstd] {
            router.get("events/\(coding.rawValue)") { request, _ in
                let key = "\(coding.rawValue)/" + EventPlan.stream(request)
                return eventStream(EventPlan(request, connection: connections.increment(key)), coding: coding)
            }
        }
        router.get("events/status/{code}") { _, context in
            let code = context.parameters.get("code", as: Int.self) ?? 500
            return respond(HTTPResponse.Status(code: code), contentType: "text/plain; charset=utf-8",
                           body: Data("status \(code)\n".utf8))
        }
        router.get("events/wrong-type") { _, _ in
            respond(contentType: "text/plain", body: Data("id: 1\nevent: tick\ndata: {\"n\":1}\n\n".utf8))
        }
        router.get("events/no-content") { _, _ in
            Response(status: .noContent)
        }
        router.get("events/many") { request, _ in
            let count = max(0, number(request, "count") ?? 1000)
            let size = min(1 << 20, max(1, number(request, "size") ?? 16))
            return Response(status: .ok, headers: eventHeaders, body: ResponseBody { writer in
                let padding = [UInt8](repeating: UInt8(ascii: "x"), count: size)
                let (head, tail) = (Array("data: ".utf8), Array("\n\n".utf8))
                var number = DecimalCounter()
                var batch = ByteBuffer()
                for _ in 0..<count {
                    number.advance()
                    batch.writeBytes(head)
                    batch.writeBytes(number.digits)
                    batch.writeBytes(padding[..<max(0, size - number.digits.count)])
                    batch.writeBytes(tail)
                    if batch.readableBytes >= batchSize {
                        try await writer.write(batch)
                        batch = ByteBuffer()
                    }
                }
                if batch.readableBytes > 0 { try await writer.write(batch) }
                try await writer.finish(nil)
            })
        }
        router.get("events/clock") { request, _ in
            let count = max(0, number(request, "count") ?? 10)
            let interval = max(0, number(request, "interval") ?? 0)
            return Response(status: .ok, headers: eventHeaders, body: ResponseBody { writer in
                for n in stride(from: 1, through: count, by: 1) {
                    if n > 1, interval > 0 { try await Task.sleep(for: .milliseconds(interval)) }
                    let now = DispatchTime.now().uptimeNanoseconds
                    try await writer.write(ByteBuffer(string: "id: \(n)\ndata: \(now)\n\n"))
                }
                try await writer.finish(nil)
            })
        }
        router.get("jsonl") { request, _ in
            let count = max(0, number(request, "count") ?? 5)
            let interval = max(0, number(request, "interval") ?? 0)
            let failAt = number(request, "fail_at")
            return Response(status: .ok, headers: [.contentType: "application/jsonl"], body: ResponseBody { writer in
                for n in stride(from: 1, through: count, by: 1) {
                    if n > 1, interval > 0 { try await Task.sleep(for: .milliseconds(interval)) }
                    try await writer.write(ByteBuffer(string: jsonLine(n, failAt: failAt) + "\n"))
                }
                try await writer.finish(nil)
            })
        }
        router.get("jsonl/bytes") { request, _ in
            let total = min(1 << 40, max(0, number(request, "mb") ?? 1) << 20)
            return Response(status: .ok, headers: [.contentType: "application/jsonl"], body: ResponseBody { writer in
                let head = Array(#"{"code":0,"data":{"id":"#.utf8)
                let middle = Array(#","name":"item "#.utf8)
                let tail = Array("\"}}\n".utf8)
                var number = DecimalCounter()
                var written = 0
                while written < total {
                    var batch = ByteBuffer()
                    batch.reserveCapacity(batchSize + 64)
                    while batch.readableBytes < batchSize, written + batch.readableBytes < total {
                        number.advance()
                        batch.writeBytes(head)
                        batch.writeBytes(number.digits)
                        batch.writeBytes(middle)
                        batch.writeBytes(number.digits)
                        batch.writeBytes(tail)
                    }
                    written += batch.readableBytes
                    try await writer.write(batch)
                }
                try await writer.finish(nil)
            })
        }
        router.get("jsonseq") { request, _ in
            let count = max(0, number(request, "count") ?? 5)
            let interval = max(0, number(request, "interval") ?? 0)
            return Response(status: .ok, headers: [.contentType: "application/json-seq"], body: ResponseBody { writer in
                for n in stride(from: 1, through: count, by: 1) {
                    if n > 1, interval > 0 { try await Task.sleep(for: .milliseconds(interval)) }
                    try await writer.write(ByteBuffer(string: "\u{1E}" + jsonLine(n, failAt: nil) + "\n"))
                }
                try await writer.finish(nil)
            })
        }
        router.get("drip") { request, _ in
            let count = max(1, number(request, "bytes") ?? 100)
            let chunk = max(1, number(request, "chunk") ?? 1)
            let pause = max(0, number(request, "interval") ?? number(request, "ms") ?? 500)
            let type = query(request, "type") ?? "text/plain"
            return Response(status: .ok, headers: [.contentType: type],
                            body: ResponseBody(contentLength: count) { writer in
                                var offset = 0
                                while offset < count {
                                    if offset > 0, pause > 0 { try await Task.sleep(for: .milliseconds(pause)) }
                                    let end = min(count, offset + chunk)
                                    var piece = ByteBuffer()
                                    for index in offset..<end { piece.writeInteger(DripText.byte(at: index, of: count)) }
                                    try await writer.write(piece)
                                    offset = end
                                }
                                try await writer.finish(nil)
                            })
        }
        router.get("lines/utf8") { request, _ in
            let interval = max(0, number(request, "interval") ?? 5)
            return Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody { writer in
                for (index, piece) in Utf8Lines.pieces.enumerated() {
                    if index > 0, interval > 0 { try await Task.sleep(for: .milliseconds(interval)) }
                    try await writer.write(ByteBuffer(bytes: piece))
                }
                try await writer.finish(nil)
            })
        }
    }

    /// The size of the writes of the routes that write as fast as the connection takes bytes.
    static let batchSize = 64 * 1024

    static let eventHeaders: HTTPFields = [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache"]

    /// The integer value of the query parameter `name`; nil when it is absent or not an integer.
    static func number(_ request: Request, _ name: String) -> Int? {
        query(request, name).flatMap { Int($0) }
    }

    /// Line `n` of the JSON Lines routes, without its LF: item n, or code 7 when n is `failAt`.
    static func jsonLine(_ n: Int, failAt: Int?) -> String {
        n == failAt ? #"{"code":7,"message":"line \#(n) is bad"}"#
                    : #"{"code":0,"data":{"id":\#(n),"name":"item \#(n)"}}"#
    }

    /// The answer to one request of an `/events` route as `plan` describes it: a 204 (or an empty
    /// event stream) once every event was sent, else the events due on this connection.
    static func eventStream(_ plan: EventPlan, coding: FixtureCoding? = nil) -> Response {
        guard plan.first <= plan.count else {
            return plan.closeWhenDone ? Response(status: .ok, headers: eventHeaders, body: ResponseBody())
                                      : Response(status: .noContent)
        }
        var headers = eventHeaders
        if let coding { headers[.contentEncoding] = coding.headerValue }
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let deflater = try coding.map { try FlushingEncoder($0) }
            if let retry = plan.retry { try await send("retry: \(retry)\n\n", to: &writer, deflater) }
            var sent = 0
            for n in plan.first...plan.last {
                if sent > 0 { try await pause(plan, writer: &writer, deflater) }
                if sent == plan.dropAfter {
                    try await send("id: \(n)\ndata: partial\n", to: &writer, deflater)
                    // The bytes are handed to the connection before the abort; the pause only
                    // lets them leave first.
                    try await Task.sleep(for: .milliseconds(20))
                    // Hummingbird closes the connection when a body writer throws, without the
                    // chunked body's last chunk: an abort, not a clean end (the raw server is
                    // not needed for it).
                    throw FixtureFault.droppedConnection
                }
                try await send(plan.event(n), to: &writer, deflater)
                sent += 1
            }
            if let deflater { try await writer.write(deflater.write([], end: true)) }
            try await writer.finish(nil)
        })
    }

    /// Writes `text`, compressed and flushed through `deflater` when there is one.
    private static func send(_ text: String, to writer: inout any ResponseBodyWriter, _ deflater: FlushingEncoder?) async throws {
        if let deflater {
            try await writer.write(deflater.write(Array(text.utf8)))
        } else {
            try await writer.write(ByteBuffer(string: text))
        }
    }

    /// Waits `plan.interval` ms, writing a `: ping` comment every `plan.commentEvery` ms meanwhile.
    private static func pause(_ plan: EventPlan, writer: inout any ResponseBodyWriter, _ deflater: FlushingEncoder?) async throws {
        guard plan.interval > 0 else { return }
        let clock = ContinuousClock()
        let end = clock.now + .milliseconds(plan.interval)
        if let every = plan.commentEvery, every > 0 {
            var next = clock.now + .milliseconds(every)
            while next < end {
                try await Task.sleep(until: next, clock: clock)
                try await send(": ping\n\n", to: &writer, deflater)
                next += .milliseconds(every)
            }
        }
        try await Task.sleep(until: end, clock: clock)
    }
}

/// What one request of an `/events` route gets: which events, how fast, and what surrounds them.
struct EventPlan: Sendable {
    /// The events in all.
    var count: Int
    /// The first event this connection sends: the one after `Last-Event-ID`.
    var first: Int
    /// Milliseconds between two events.
    var interval: Int
    /// The events per connection; nil for no limit.
    var closeAfter: Int?
    /// The `retry:` value written first; nil for none.
    var retry: Int?
    /// Milliseconds between the comments written while waiting; nil for none.
    var commentEvery: Int?
    /// Whether a request that comes once every event was sent gets an empty event stream
    /// (`done=close`) rather than a 204.
    var closeWhenDone: Bool
    /// Whether each event's data spans two `data:` lines.
    var multiline: Bool
    /// Which request this is for its route and `stream` (1 for the first).
    var connection: Int
    /// The request's `Authorization` value, escaped for a JSON string.
    var auth: String
    /// After this many events the connection sends half an event and aborts; nil never.
    var dropAfter: Int?

    init(_ request: Request, connection: Int, defaultCount: Int = 5) {
        count = max(0, FixtureRoutes.number(request, "count") ?? defaultCount)
        let lastID = request.headers.first { $0.name.canonicalName == "last-event-id" }
            .map { Int($0.value.trimmingCharacters(in: .whitespaces)) ?? 0 } ?? 0
        first = max(0, lastID) + 1
        interval = max(0, FixtureRoutes.number(request, "interval") ?? 0)
        closeAfter = FixtureRoutes.number(request, "close_after").map { max(1, $0) }
        retry = FixtureRoutes.number(request, "retry").map { max(0, $0) }
        commentEvery = FixtureRoutes.number(request, "comment_every")
        closeWhenDone = FixtureRoutes.query(request, "done") == "close"
        multiline = FixtureRoutes.query(request, "multiline") == "1"
        self.connection = connection
        auth = Self.escaped(request.headers[.authorization] ?? "")
    }

    /// The `stream` query value that keys the connection counter ("" without one).
    static func stream(_ request: Request) -> String {
        FixtureRoutes.query(request, "stream") ?? ""
    }

    /// The last event this connection sends (`first` or later).
    var last: Int {
        closeAfter.map { min(count, first + $0 - 1) } ?? count
    }

    /// Event `n` with its blank line.
    func event(_ n: Int) -> String {
        let head = #"{"n":\#(n),"connection":\#(connection),"#
        let tail = #""auth":"\#(auth)"}"#
        let data = multiline ? "data: \(head)\ndata: \(tail)\n" : "data: \(head)\(tail)\n"
        return "id: \(n)\nevent: tick\n" + data + "\n"
    }

    /// `text` as the inside of a JSON string.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// A number counted up from 0 as its ASCII decimal digits, for the routes that write lines as
/// fast as they can (no integer formatting per line).
struct DecimalCounter {
    /// The digits of the number, most significant first.
    private(set) var digits: [UInt8] = [UInt8(ascii: "0")]

    /// Adds 1.
    mutating func advance() {
        var index = digits.count - 1
        while digits[index] == UInt8(ascii: "9") {
            digits[index] = UInt8(ascii: "0")
            guard index > 0 else {
                digits.insert(UInt8(ascii: "1"), at: 0)
                return
            }
            index -= 1
        }
        digits[index] += 1
    }
}

/// The text `/drip` sends: lines of 64 bytes (63 printable ASCII characters and LF) whose
/// characters shift by one from line to line; the last byte of a body is always LF.
enum DripText {
    /// Byte `index` of a body of `count` bytes.
    static func byte(at index: Int, of count: Int) -> UInt8 {
        let column = index % 64
        guard column != 63, index != count - 1 else { return UInt8(ascii: "\n") }
        return UInt8(0x21 + (index / 64 + column) % 94)
    }
}

/// The body of `/lines/utf8` and the pieces it is written in.
enum Utf8Lines {
    /// Lines with 2-, 3- and 4-byte characters (é, ñ, €, 中, 😀, 🎉); they end in LF, CRLF and
    /// CR, and the body ends in LF.
    static let text = "caf\u{E9} au lait\n"
        + "prix: 12 \u{20AC}\r\n"
        + "\u{1F600} grin\r"
        + "\u{4E2D}\u{6587} and \u{F1}and\u{FA}\n"
        + "party \u{1F389}\u{1F389}\r\n"
        + "plain ascii line\r"
        + "\u{20AC}\u{E9}\u{1F600}\n"

    /// `text` as written: cut after the first byte of every multi-byte character, after the
    /// second byte of each 3- and 4-byte one, and between a CR and the LF after it.
    static let pieces: [[UInt8]] = {
        let bytes = Array(text.utf8)
        var cuts: [Int] = []
        var index = 0
        for scalar in text.unicodeScalars {
            let length = String(scalar).utf8.count
            if length > 1 { cuts.append(index + 1) }
            if length > 2 { cuts.append(index + 2) }
            if scalar == "\r", index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { cuts.append(index + 1) }
            index += length
        }
        var pieces: [[UInt8]] = []
        var start = 0
        for cut in cuts + [bytes.count] where cut > start {
            pieces.append(Array(bytes[start..<cut]))
            start = cut
        }
        return pieces
    }()
}
