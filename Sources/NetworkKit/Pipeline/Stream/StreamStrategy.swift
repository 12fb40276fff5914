import Foundation

/// A stream: each accepted answer's body goes to the stream's sink (its parser and consumers) as
/// it arrives, the request has no service limits but its own, an attempt after the first carries
/// the last event's identity, and a connection that ends may be followed by another, as the
/// stream's reconnection policy says. The request's result is the summary of every connection.
struct StreamStrategy: RequestStrategy {
    let setup: StreamSetup

    init(_ setup: StreamSetup) {
        self.setup = setup
    }

    func body(accepting acceptable: Range<Int>) -> Transfer.Body {
        .stream(sink: setup.sink, accepting: acceptable)
    }

    var reconnection: StreamReconnection? { setup.reconnection }

    func serviceTimeLimit(_ settings: PipelineSettings) -> Duration? { nil }
    func serviceSizeLimit(_ settings: PipelineSettings) -> Int64? { nil }
    /// A stream's bytes are not held: its parser's limits bound it.
    func decompressionLimit(_ settings: PipelineSettings) -> Int64 { .max }

    /// Consumers hear the end, and a transport waiting for them is let go, whoever finishes the
    /// request (its pipeline, a cancel, a limit).
    func begin(_ request: AnyRequest) {
        request.observeAnyResult { [sink = setup.sink] in sink.close($0) }
    }

    func prepare(_ attempt: inout OutgoingRequest) throws(NetworkError) {
        let lastEventID = setup.sink.resumption.lastEventID
        if !lastEventID.isEmpty { attempt.head.headerFields[.lastEventID] = lastEventID }
    }

    /// The end of a connection: returns once every chunk of it was parsed (what the loop had not
    /// taken, here) and, for a body that ended as it should, the parser's last items were handed
    /// out. Its items went to the consumers as they arrived; a 204 ends the stream.
    func respond(to outcome: TransferOutcome, in pipeline: RequestPipeline, cache: (any RequestCaching)?) async -> AnyResult {
        let accepting = pipeline.acceptableStatusCodes
        let bodyEnded = outcome.error == nil && outcome.head.map { accepting.contains($0.status.code) && $0.status != .noContent } ?? false
        if let error = await setup.sink.endConnection(bodyEnded: bodyEnded, request: pipeline.request) {
            return .failure(error)
        }
        let head: ResponseHead
        do {
            head = try pipeline.answerHead(of: outcome)
        } catch {
            return .failure(error)
        }
        guard accepting.contains(head.status.code) else {
            return .failure(.httpStatus(code: head.status.code, body: outcome.body, headerFields: head.headerFields))
        }
        if head.status == .noContent { return .success(StreamSummary.Ending.noContent) }
        return .success(StreamSummary.Ending.endOfBody)
    }

    func connectionEnd(after result: AnyResult, request: AnyRequest) -> (StreamReconnector.ConnectionEnd, serverDelay: Duration?) {
        let end: StreamReconnector.ConnectionEnd = switch result {
        case .success(let ending as StreamSummary.Ending) where ending == .noContent: .noContent
        case .success: .endOfBody
        case .failure(let error): .failed(error, began: request.responseHead.map { $0.status.kind == .successful } ?? false)
        }
        return (end, setup.sink.resumption.retry)
    }

    /// Its ending as the summary of every connection the sink took; a failure as it is.
    func finalResult(_ result: AnyResult) -> AnyResult {
        guard case .success(let ending as StreamSummary.Ending) = result else { return result }
        let counts = setup.sink.counts
        return .success(StreamSummary(itemCount: counts.items, connectionCount: counts.connections,
                                      lastEventID: setup.sink.resumption.lastEventID, ending: ending))
    }

    var streamCounts: (items: Int, connections: Int)? { setup.sink.counts }
}
