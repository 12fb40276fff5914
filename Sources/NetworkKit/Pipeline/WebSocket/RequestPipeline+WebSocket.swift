import Foundation

extension RequestPipeline {
    /// Steps 5 and 6 for a WebSocket request: a `101` with the connection it opened is parsed
    /// (the parser hands the connection over); any other answer fails as a plain request's
    /// status would, so the interceptors may retry it (a `401` after a token refresh). A
    /// connection the request does not end up holding is closed.
    func respondToUpgrade(_ outcome: TransferOutcome, connection: (any WebSocketConnection)?) async -> AnyResult {
        let result: AnyResult
        if let error = outcome.error {
            result = .failure(error)
        } else if let head = outcome.head, head.status == .switchingProtocols, let connection {
            var response = Response(head, data: Data())
            let watchers = monitors + (observer.map { [$0.webSocketOpened()] } ?? [])
            response.webSocket = watchers.isEmpty ? connection : MonitoredWebSocketConnection(connection, id: request.id, monitors: watchers)
            response.openWebSockets = service.openWebSockets
            if case .webSocket(let setup) = options.kind, setup.options.reconnection.isEnabled {
                let clock = settings.clock
                response.webSocketReopening = WebSocketReopening(policy: setup.options.reconnection, reopen: reopenWebSocket) { duration in
                    try await Self.sleep(on: clock, for: duration)
                }
            }
            result = await parse(response)
        } else if let head = outcome.head {
            result = .failure(.httpStatus(code: head.status.code, body: outcome.body, headerFields: head.headerFields))
        } else {
            result = .failure(.transport(TransportError(.badServerResponse, detail: "the upgrade ended without a response")))
        }
        if case .failure = result, let connection {
            await connection.close(code: 1001, reason: "")
        }
        return result
    }

    /// Sends this request's upgrade again as a new request through the service, for a socket
    /// that reconnects: the same options, a fresh place for the transport to leave the connection.
    private var reopenWebSocket: @Sendable () async throws(NetworkError) -> Response {
        { [service, options] () async throws(NetworkError) -> Response in
            var again = options
            if case .webSocket(let setup) = options.kind { again.kind = .webSocket(WebSocketSetup(options: setup.options)) }
            switch await service.run(options: again, parser: UpgradeParser()) {
            case .success(let response as Response): return response
            case .success: throw .invalidRequest("the reopened upgrade returned no response")
            case .failure(let error): throw error
            }
        }
    }
}

/// The parser of a reopened upgrade: the response as it came, its connection in it.
private struct UpgradeParser: ResponseParser {
    func parse(_ response: Response) throws -> Response { response }
    var isLightweight: Bool { true }
}
