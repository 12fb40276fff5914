#if NIO
import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Several HTTP/2 connections to one host, for a server whose stream limit
/// (`SETTINGS_MAX_CONCURRENT_STREAMS`) would cap the requests in flight. AsyncHTTPClient keeps
/// one HTTP/2 connection per host in a client, so the transport keeps up to
/// `maxConnections` clients, made as they are first needed, and sends each request to an
/// `https` host through the client its ``StateMachine`` chooses, from what each client's
/// connections report of their streams as they open and close (``NIOConnectionRotation``); each
/// client keeps its own `GOAWAY` handling.
///
/// One lock guards the machine, another the clients made so far.
final class NIOHTTP2Spread: Sendable {
    /// A request's place: the client to send it with, and what to report back when it answers
    /// and when it ends. A class, so that a transfer that has none carries one word for it.
    final class Ticket: Sendable {
        let spread: NIOHTTP2Spread
        /// The host's key.
        let host: String
        /// The client's index.
        let connection: Int
        /// The client.
        let client: HTTPClient

        init(spread: NIOHTTP2Spread, host: String, connection: Int, client: HTTPClient) {
            self.spread = spread
            self.host = host
            self.connection = connection
            self.client = client
        }

        /// The answer's head came over `version`.
        func answered(over version: NIOHTTP1.HTTPVersion) {
            guard version.major == 2 else { return }
            spread.feed { $0.answered(host: host, http2: true) }
        }

        /// The request ended, however it ended.
        func end() {
            spread.feed { $0.ended(host: host, connection: connection) }
        }
    }

    private let state: NIOLockedValueBox<StateMachine>
    private let clientList = NIOLockedValueBox<[HTTPClient]>([])
    /// Makes client `index` with the transport's configuration, its connections reporting to
    /// the spread given.
    private let makeClient: @Sendable (_ index: Int, _ spread: NIOHTTP2Spread) -> HTTPClient

    /// A spread over at most `maxConnections` clients, which `makeClient` makes as they are
    /// first needed.
    init(maxConnections: Int, makeClient: @escaping @Sendable (_ index: Int, _ spread: NIOHTTP2Spread) -> HTTPClient) {
        state = NIOLockedValueBox(StateMachine(maxConnections: maxConnections))
        self.makeClient = makeClient
    }

    /// Client `index`, made if it was not yet (so are those before it).
    func client(_ index: Int) -> HTTPClient {
        clientList.withLockedValue { clients in
            while clients.count <= index { clients.append(makeClient(clients.count, self)) }
            return clients[index]
        }
    }

    /// Hands over the clients made so far, the first one first, to be shut down, and forgets
    /// them: their connections' reports hold the spread, which must not hold them in turn.
    func takeClients() -> [HTTPClient] {
        clientList.withLockedValue { clients in
            defer { clients = [] }
            return clients
        }
    }

    /// The key of `url`'s host when requests to it are spread: `https` URLs only (AsyncHTTPClient
    /// speaks HTTP/2 over TLS alone); the name lowercased without brackets, and the port.
    static func hostKey(of url: URL?) -> String? {
        guard let url, url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty else { return nil }
        return key(host: host, port: url.port ?? 443)
    }

    /// The key of a stream's `:authority` (`host`, `host:port`, `[v6]:port`), as ``hostKey(of:)``
    /// makes it of a URL.
    static func hostKey(authority: String) -> String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            let port = rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil
            return key(host: String(host), port: port ?? 443)
        }
        if let colon = authority.lastIndex(of: ":"), authority.firstIndex(of: ":") == colon {
            return key(host: String(authority[..<colon]), port: Int(authority[authority.index(after: colon)...]) ?? 443)
        }
        return key(host: authority, port: 443)
    }

    private static func key(host: String, port: Int) -> String {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        return "\(name):\(port)"
    }

    /// Where a request to `host` goes, counted in flight there until its ticket's ``Ticket/end()``.
    func place(host: String) -> Ticket {
        let connection = state.withLockedValue { $0.place(host: host) }
        return Ticket(spread: self, host: host, connection: connection, client: client(connection))
    }

    /// What the HTTP/2 connections of client `connection` report, on their event loops: a
    /// stream to `authority` opened (`opened`) or closed, and how many streams the connection
    /// had open then (with the new one; before the closed one closed).
    func stream(to authority: String, connection: Int, opened: Bool, openStreams: Int) {
        let host = Self.hostKey(authority: authority)
        state.withLockedValue { machine in
            if opened {
                machine.streamOpened(host: host, connection: connection, openStreams: openStreams)
            } else {
                machine.streamClosed(host: host, connection: connection, openStreams: openStreams)
            }
        }
    }

    /// Feeds the machine one event under the lock.
    fileprivate func feed(_ event: (inout StateMachine) -> Void) {
        state.withLockedValue { event(&$0) }
    }
}
#endif
