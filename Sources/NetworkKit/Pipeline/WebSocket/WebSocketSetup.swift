import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a WebSocket request carries through the pipeline: its options, and where the transport
/// leaves the connection an upgrade opened, for the pipeline to hand to the parser.
struct WebSocketSetup: Sendable {
    /// The options the connection is opened with.
    let options: WebSocketOptions
    /// The connection of the latest successful upgrade, until the pipeline takes it.
    private let opened = Protected<(any WebSocketConnection)?>(nil)

    init(options: WebSocketOptions) {
        self.options = options
    }

    /// Called by the transport when an upgrade succeeded, before it completes the transfer.
    func open(_ connection: any WebSocketConnection) {
        opened.withLock { $0 = connection }
    }

    /// The connection an upgrade opened, taken out (nil when none did).
    func take() -> (any WebSocketConnection)? {
        opened.withLock { connection in
            defer { connection = nil }
            return connection
        }
    }
}

extension WebSocketOptions {
    /// The fields an upgrade to a WebSocket sends besides the request's own (the transport adds
    /// the handshake's key, version, `Upgrade` and `Connection`).
    var upgradeFields: HTTPFields {
        subprotocols.isEmpty ? [:] : [.secWebSocketProtocol: subprotocols.joined(separator: ", ")]
    }
}
