import FixtureServer
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback HTTP/1.1 server for the cookie tests' runs of curl. It answers each request in
/// turn, on one thread: `answer` gets the request target and the `Cookie` header (nil when
/// there is none) and returns the `Set-Cookie` lines and the body to send, sent byte for byte;
/// then the connection is closed. No framework in between: `Set-Cookie` lines reach curl as is.
final class CookieTestServer: Sendable {
    /// What to send back.
    struct Answer: Sendable {
        var setCookies: [String] = []
        var body = ""
    }

    /// The port it listens on, on 127.0.0.1.
    let port: Int
    private let listener: Int32

    private init(port: Int, listener: Int32) {
        self.port = port
        self.listener = listener
    }

    /// Binds a free loopback port and serves until ``stop()``.
    static func start(_ answer: @escaping @Sendable (_ target: String, _ cookie: String?) -> Answer) throws -> CookieTestServer {
        let listener: Int32, port: Int
        do {
            (listener, port) = try LoopbackSocket.bound()
        } catch let failure as LoopbackSocket.Failure {
            throw ServerError(step: failure.step)
        }
        let server = CookieTestServer(port: port, listener: listener)
        Thread.detachNewThread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }  // stopped
                Self.serve(client, answer)
            }
        }
        return server
    }

    /// Stops accepting connections.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Reads one request head from `client`, writes the answer and closes the connection.
    private static func serve(_ client: Int32, _ answer: (String, String?) -> Answer) {
        defer { close(client) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.firstRange(of: Array("\r\n\r\n".utf8)) == nil, head.count < 1 << 20 {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            head += buffer[..<count]
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let words = lines.first?.split(separator: " ") ?? []
        guard words.count >= 2 else { return }
        let cookie = lines.dropFirst().first { $0.lowercased().hasPrefix("cookie:") }
            .map { $0.dropFirst("cookie:".count).trimmingCharacters(in: .whitespaces) }
        let reply = answer(String(words[1]), cookie)
        var text = "HTTP/1.1 200 OK\r\n"
        for line in reply.setCookies { text += "Set-Cookie: \(line)\r\n" }
        text += "Content-Type: text/plain; charset=utf-8\r\nContent-Length: \(reply.body.utf8.count)\r\n"
        text += "Connection: close\r\n\r\n" + reply.body
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            #if os(Linux)
            let sent = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #else
            let sent = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
            #endif
            guard sent > 0 else { return }
            bytes = bytes.dropFirst(sent)
        }
    }

    /// A socket call that failed while starting.
    struct ServerError: Error, CustomStringConvertible {
        let step: String
        var description: String { "the cookie test server could not \(step): errno \(errno)" }
    }
}

/// Running curl for the cookie tests.
enum CookieCurl {
    /// curl's version line; nil when curl cannot be run.
    static func version() async -> String? {
        try? await run(["--version"]).split(separator: "\n").first.map(String.init)
    }

    /// What `curl arguments` printed; with `fakeTime` ("2011-03-13 07:06:40"), run under
    /// `faketime` with a clock that starts then. The wait is on a thread of its own, so the
    /// cooperative pool stays free for the in-process servers while curl talks to one.
    /// - Throws: when it cannot start, or `ToolFailure` when it exits non-zero.
    static func run(_ arguments: [String], fakeTime: String? = nil) async throws -> String {
        try await toolOutput((fakeTime.map { ["faketime", "-f", "@" + $0] } ?? []) + ["curl"] + arguments)
    }

    /// curl cannot be run here.
    struct Missing: Error, CustomStringConvertible {
        var description: String { "curl is not installed (or does not run): the cookie tests compare the jar with it" }
    }
}
