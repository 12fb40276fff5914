import Foundation

/// The stream's part of the pipeline: how an answer ends a stream's connection, and what a
/// stream's result is. The attempt loop calls these for a request whose kind is `.stream`.
extension RequestPipeline {
    /// The end of a stream's connection, before step 5: returns once every chunk of it was parsed
    /// (what the loop had not taken, here) and, for a body that ended as it should, the parser's
    /// last items were handed out; with the parser's error, if any.
    func endConnection(of stream: StreamSetup, outcome: TransferOutcome) async -> NetworkError? {
        let bodyEnded = outcome.error == nil && outcome.head.map {
            acceptableStatusCodes.contains($0.status.code) && $0.status != .noContent
        } ?? false
        return await stream.sink.endConnection(bodyEnded: bodyEnded, request: request)
    }

    /// Steps 5 and 6 for a stream whose items went to its consumers as they arrived: a 204 ends it.
    func respondToStream(head: ResponseHead, body: Data) -> AnyResult {
        guard acceptableStatusCodes.contains(head.status.code) else {
            return .failure(.httpStatus(code: head.status.code, body: body, headerFields: head.headerFields))
        }
        if head.status == .noContent { return .success(StreamSummary.Ending.noContent) }
        return .success(StreamSummary.Ending.endOfBody)
    }

    /// How a stream's connection ended, for its reconnector: `result` is what `respond` made of it.
    func connectionEnd(_ result: AnyResult) -> StreamReconnector.ConnectionEnd {
        switch result {
        case .success(let ending as StreamSummary.Ending) where ending == .noContent: return .noContent
        case .success: return .endOfBody
        case .failure(let error): return .failed(error, began: request.responseHead.map { $0.status.kind == .successful } ?? false)
        }
    }

    /// A stream's result: its ending as the summary of every connection `sink` took; a failure as it is.
    func streamResult(_ result: AnyResult, sink: any StreamSinking) -> AnyResult {
        guard case .success(let ending as StreamSummary.Ending) = result else { return result }
        let counts = sink.counts
        return .success(StreamSummary(itemCount: counts.items, connectionCount: counts.connections,
                                      lastEventID: sink.resumption.lastEventID, ending: ending))
    }
}
