/// The raw server's canned answers, by request path. Each is written as is, then the
/// connection is closed (what a client must make of the bytes is in the comments).
struct RawAnswer: Sendable {
    /// Everything sent on the connection: head, body and whatever follows.
    let bytes: [UInt8]

    /// The answer to a request for `path`; a 404 for paths it does not know.
    static func `for`(path: String) -> RawAnswer {
        switch path {
        case "/raw/garbage-status": garbageStatus
        case "/raw/long-body": longBody
        case "/raw/bad-chunk": badChunk
        case "/raw/http10-close": http10Close
        case "/raw/many-headers": manyHeaders
        case "/raw/huge-header": hugeHeader
        default: RawAnswer(text: "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
    }

    /// A status line that is not HTTP at all: a bad server response.
    static let garbageStatus = RawAnswer(text: "SPDY/9 LOL NOT HTTP\r\nContent-Length: 5\r\n\r\nhello")

    /// `Content-Length: 5` followed by more bytes than that: the answer is the 5 announced bytes
    /// ("hello"), the rest is discarded.
    static let longBody = RawAnswer(text: """
        HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n\
        hello, and a good deal more than the Content-Length announced
        """)

    /// A chunk size that is not hexadecimal after a valid first chunk: a bad server response.
    static let badChunk = RawAnswer(text: """
        HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n\
        5\r\nhello\r\nnot-hex\r\nworld\r\n0\r\n\r\n
        """)

    /// An HTTP/1.0 answer without `Content-Length` whose body ends when the connection closes:
    /// valid HTTP, the whole body (`{"code": 0, "items": [...]}` with 5,000 items) is the answer.
    static let http10Close: RawAnswer = {
        let items = (0..<5_000).map { #"{"id": \#($0)}"# }.joined(separator: ",")
        return RawAnswer(text: "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n"
                         + #"{"code": 0, "items": ["# + items + "]}")
    }()

    /// 100,000 header fields (about 2 MB of head) before a 2-byte body: more head than a client
    /// should hold.
    static let manyHeaders: RawAnswer = {
        let fields = (0..<100_000).map { "X-Filler-\($0): \($0)\r\n" }.joined()
        return RawAnswer(text: "HTTP/1.1 200 OK\r\n" + fields + "Content-Length: 2\r\n\r\nok")
    }()

    /// One header field of 1 MiB before a 2-byte body.
    static let hugeHeader = RawAnswer(
        text: "HTTP/1.1 200 OK\r\nX-Huge: " + String(repeating: "a", count: 1 << 20) + "\r\nContent-Length: 2\r\n\r\nok"
    )

    private init(text: String) {
        bytes = Array(text.utf8)
    }
}
