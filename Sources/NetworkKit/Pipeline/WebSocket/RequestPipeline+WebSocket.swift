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
        } else if let head = outcome.head, head.statusCode == 101, let connection {
            var response = Response(head, data: Data())
            response.webSocket = connection
            result = await parse(response)
        } else if let head = outcome.head {
            result = .failure(.httpStatus(code: head.statusCode, body: outcome.body, headers: head.headers))
        } else {
            result = .failure(.transport(TransportError(.badServerResponse, detail: "the upgrade ended without a response")))
        }
        if case .failure = result, let connection {
            await connection.close(code: 1001, reason: "")
        }
        return result
    }
}
