#if NIO
extension NIOHTTP2Spread {
    /// Decides which of the transport's clients (each with at most one HTTP/2 connection to a
    /// host: AsyncHTTPClient keeps one per host) sends each request to an `https` host, from what
    /// the connections report. It runs no code of its own: `NIOHTTP2Spread` feeds it under its
    /// lock and sends the request where it says.
    ///
    /// A host is sent everything on connection 0 until it is known to speak HTTP/2 (a stream was
    /// opened to it, or an answer came over HTTP/2); a host that answers over HTTP/1.1 stays on
    /// connection 0, whose client keeps its own pool of HTTP/1 connections. To a host that speaks
    /// HTTP/2, a request goes on the least loaded connection with room under its stream limit;
    /// when none has room, on a new connection while there are fewer than the maximum; else on
    /// the least loaded one, where AsyncHTTPClient queues it until a stream closes.
    ///
    /// **The stream limit is learned, not read.** AsyncHTTPClient reads the server's first
    /// `SETTINGS` before any handler of ours is on the connection, so a connection's limit is
    /// what its streams show: AsyncHTTPClient opens streams up to the limit and queues the rest,
    /// so when a stream closes while requests placed on the connection still wait for one, the
    /// streams open just before were the limit. The estimate only grows (it is raised to the
    /// most streams seen open at once), so a request in transit at that moment can make it low
    /// for a while, which spreads early, never late. Until a connection has shown its limit it
    /// is assumed to have the smallest its host's other connections showed, else
    /// ``assumedStreamLimit``: the first requests to a host share connection 0.
    struct StateMachine {
        /// What is known of one connection (one client's) to a host.
        struct Connection: Equatable {
            /// Requests placed on it that have not ended.
            var inFlight = 0
            /// Requests placed on it whose stream has not opened yet, as far as the reports tell
            /// (set to 0 when nothing is in flight).
            var awaitingStream = 0
            /// Its stream limit, once its streams showed it.
            var streamLimit: Int?
        }

        /// One host's state.
        struct Host: Equatable {
            /// A stream was opened to it, or an answer came from it over HTTP/2.
            var speaksHTTP2 = false
            /// Indexed by client: connection `i` is client `i`'s.
            var connections = [Connection()]

            /// Nothing in flight: the host's entry may be dropped.
            var isIdle: Bool { connections.allSatisfy { $0.inFlight == 0 } }
        }

        /// The stream limit assumed of a connection whose host has shown none: AsyncHTTPClient
        /// assumes 100 of a server that sends none, and RFC 9113 §6.5.2 recommends no fewer.
        static let assumedStreamLimit = 100
        /// Hosts kept: above this, idle hosts are forgotten (a server that redirects to many
        /// hosts must not grow the table without end).
        static let rememberedHosts = 256

        /// Connections per host at most.
        let maxConnections: Int
        /// The hosts, by the key ``NIOHTTP2Spread`` makes of their name and port.
        private(set) var hosts: [String: Host] = [:]

        /// A machine opening at most `maxConnections` connections to a host.
        init(maxConnections: Int) {
            self.maxConnections = max(1, maxConnections)
        }

        /// A request to `host` starts: the connection (client index) to send it on, counted in
        /// flight there.
        mutating func place(host key: String) -> Int {
            var host = hosts[key] ?? makeHost()
            defer { hosts[key] = host }
            let chosen = host.speaksHTTP2 ? Self.choose(in: &host, maxConnections: maxConnections) : 0
            host.connections[chosen].inFlight += 1
            host.connections[chosen].awaitingStream += 1
            return chosen
        }

        /// A request placed on `connection` to `host` ended, however it ended.
        mutating func ended(host key: String, connection: Int) {
            update(key, connection) { connection in
                connection.inFlight = max(0, connection.inFlight - 1)
                if connection.inFlight == 0 { connection.awaitingStream = 0 }
            }
        }

        /// An answer from `host` came over HTTP/2 (`http2`) or HTTP/1.1.
        mutating func answered(host key: String, http2: Bool) {
            if http2 { hosts[key]?.speaksHTTP2 = true }
        }

        /// A stream to `host` opened on `connection`, which has `openStreams` open with it.
        mutating func streamOpened(host key: String, connection: Int, openStreams: Int) {
            hosts[key]?.speaksHTTP2 = true
            update(key, connection) { connection in
                connection.awaitingStream = max(0, connection.awaitingStream - 1)
                if let limit = connection.streamLimit, openStreams > limit { connection.streamLimit = openStreams }
            }
        }

        /// A stream to `host` on `connection` closed; `openStreams` were open just before. When
        /// requests placed on the connection still wait for a stream, that was its limit.
        mutating func streamClosed(host key: String, connection: Int, openStreams: Int) {
            update(key, connection) { connection in
                if connection.awaitingStream > 0 { connection.streamLimit = max(connection.streamLimit ?? 0, openStreams) }
            }
        }

        /// Applies `change` to `connection` of `host`, when both are known.
        private mutating func update(_ key: String, _ index: Int, _ change: (inout Connection) -> Void) {
            guard var host = hosts[key], host.connections.indices.contains(index) else { return }
            change(&host.connections[index])
            hosts[key] = host
        }

        /// A new host's entry, after forgetting idle hosts if the table is full.
        private mutating func makeHost() -> Host {
            if hosts.count >= Self.rememberedHosts {
                hosts = hosts.filter { !$0.value.isIdle }
            }
            return Host()
        }

        /// The connection a request to an HTTP/2 host goes on: the least loaded with room under
        /// its limit (the lowest index among equals); else a new one while fewer than
        /// `maxConnections` are open; else the least loaded.
        private static func choose(in host: inout Host, maxConnections: Int) -> Int {
            let shown = host.connections.compactMap(\.streamLimit).min() ?? assumedStreamLimit
            var roomy: Int?, leastLoaded = 0
            for (index, connection) in host.connections.enumerated() {
                if connection.inFlight < host.connections[leastLoaded].inFlight { leastLoaded = index }
                guard connection.inFlight < (connection.streamLimit ?? shown) else { continue }
                if roomy.map({ connection.inFlight < host.connections[$0].inFlight }) ?? true { roomy = index }
            }
            if let roomy { return roomy }
            guard host.connections.count < maxConnections else { return leastLoaded }
            host.connections.append(Connection())
            return host.connections.count - 1
        }
    }
}
#endif
