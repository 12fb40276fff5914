import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A WebSocket's upgrade: the transport is asked to upgrade, each attempt offers the socket's
/// subprotocols, and a `101` with the connection it opened is parsed (the parser hands the
/// connection over); any other answer fails as a plain request's status would, so the
/// interceptors may retry it (a `401` after a token refresh). A connection the request does not
/// end up holding is closed.
struct WebSocketStrategy: RequestStrategy {
    let setup: WebSocketSetup

    init(_ setup: WebSocketSetup) {
        self.setup = setup
    }

    func body(accepting acceptable: Range<Int>) -> Transfer.Body { .memory }

    func prepare(_ attempt: inout OutgoingRequest) throws(NetworkError) {
        for field in setup.options.upgradeFields { attempt.head.headerFields[field.name] = field.value }
    }

    func start(_ request: OutgoingRequest, on transport: any Transport, priority: RequestPriority,
               events: any TransportEvents) -> any TransportTask {
        transport.startWebSocket(request, options: setup.options, events: events, opened: setup.open)
    }

    func respond(to outcome: TransferOutcome, in pipeline: RequestPipeline, cache: (any RequestCaching)?) async -> AnyResult {
        let connection = setup.take()
        let result: AnyResult
        if let error = outcome.error {
            result = .failure(error)
        } else if let head = outcome.head, head.status == .switchingProtocols, let connection {
            var response = Response(head, data: Data())
            let watchers = pipeline.monitors + (pipeline.observer.map { [$0.webSocketOpened()] } ?? [])
            response.webSocket = watchers.isEmpty
                ? connection : MonitoredWebSocketConnection(connection, id: pipeline.request.id, monitors: watchers)
            response.openWebSockets = pipeline.service.openWebSockets
            if setup.options.reconnection.isEnabled {
                let clock = pipeline.settings.clock
                response.webSocketReopening = WebSocketReopening(policy: setup.options.reconnection,
                                                                 reopen: reopen(through: pipeline.service, options: pipeline.options)) { duration in
                    try await RequestPipeline.sleep(on: clock, for: duration)
                }
            }
            result = await pipeline.parse(response)
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

    /// Sends the request's upgrade again as a new request through `service`, for a socket that
    /// reconnects: the same options, a fresh place for the transport to leave the connection.
    private func reopen(through service: Service, options: RequestOptions) -> @Sendable () async throws(NetworkError) -> Response {
        { [socketOptions = setup.options] () async throws(NetworkError) -> Response in
            var again = options
            again.kind = .webSocket(WebSocketSetup(options: socketOptions))
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
