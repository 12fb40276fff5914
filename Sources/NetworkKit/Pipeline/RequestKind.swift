import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a request does with its answer, each kind with the options that belong to it. Each kind
/// has its strategy (`strategy(options:settings:)`, the one place the kit asks which kind a request
/// is): the pipeline runs every kind the same way and leaves what differs to it.
enum RequestKind: Sendable {
    /// The body is kept in memory and parsed once it has all arrived (``PlainStrategy``).
    case plain
    /// The body goes to a file on disk (``Download``); the parser gets the file once it is whole
    /// (`DownloadStrategy`).
    case download(Download)
    /// The body is parsed as it arrives, into items for the stream's consumers, and the request
    /// may connect again after its body ends (``StreamSetup``, `StreamStrategy`).
    case stream(StreamSetup)
    /// The request asks to upgrade to a WebSocket (``WebSocketSetup``, `WebSocketStrategy`): a
    /// `101` answer hands over the connection, any other status fails as a plain request's would.
    case webSocket(WebSocketSetup)

    /// The strategy of one run of a request of this kind, sent with `options` by a service with
    /// `settings`.
    func strategy(options: RequestOptions, settings: PipelineSettings) -> any RequestStrategy {
        switch self {
        case .plain: PlainStrategy()
        case .download(let download): DownloadStrategy(download, options: options, environment: settings.environment)
        case .stream(let setup): StreamStrategy(setup)
        case .webSocket(let setup): WebSocketStrategy(setup)
        }
    }

    /// Whether the response cache may answer a request of this kind and keep its answer: only a
    /// plain request's answer is kept whole in memory.
    var isCacheable: Bool {
        if case .plain = self { true } else { false }
    }

    /// True when a stop leaves the request's finish to its pipeline, which must clean up first (a
    /// download closes its file, a WebSocket closes a connection its upgrade opened).
    var pipelineFinishesStops: Bool {
        switch self {
        case .download, .webSocket: true
        case .plain, .stream: false
        }
    }

    /// Whether the service ends a request of this kind when it shuts down: a stream never ends
    /// on its own.
    var endsAtShutdown: Bool {
        if case .stream = self { true } else { false }
    }
}

/// What one kind of request does that the others do not, for the pipeline to call without asking
/// which kind it runs: the limits the service sets for the kind, where an accepted answer's body
/// goes, the header fields each attempt adds, how the transfer starts, how an answer becomes the
/// request's result (stages 5 and 6), and, for a stream, how a connection's end reads for its
/// reconnection. Made once per run of a request (`RequestKind.strategy(options:settings:)`); each
/// lives beside its kind's other parts (`Download/`, `Stream/`, `WebSocket/`), the plain one here.
protocol RequestStrategy: Sendable {
    /// Where the body of an answer the request accepts goes, in every transfer; `acceptable` are
    /// the statuses the request accepts.
    func body(accepting acceptable: Range<Int>) -> Transfer.Body
    /// The download's partial file, which the pipeline's state machine may restart from zero; nil
    /// for the other kinds.
    var partialFile: URL? { get }
    /// A stream's reconnection policy; nil for a kind that never connects again.
    var reconnection: StreamReconnection? { get }
    /// The service's time limit for this kind, for a request that sets none.
    func serviceTimeLimit(_ settings: PipelineSettings) -> Duration?
    /// The service's size limit for this kind, for a request that sets none.
    func serviceSizeLimit(_ settings: PipelineSettings) -> Int64?
    /// The most bytes a content-encoded body may inflate to.
    func decompressionLimit(_ settings: PipelineSettings) -> Int64
    /// The pipeline begins running `request`.
    func begin(_ request: AnyRequest)
    /// Adds this kind's header fields to an attempt's request, before the interceptors see it
    /// (the fields that resume a download, a stream's `Last-Event-ID`, a WebSocket's subprotocols).
    func prepare(_ attempt: inout OutgoingRequest) throws(NetworkError)
    /// Starts the transfer of `request` on `transport`, reporting to `events`.
    func start(_ request: OutgoingRequest, on transport: any Transport, priority: RequestPriority,
               events: any TransportEvents) -> any TransportTask
    /// Stages 5 and 6: what `outcome`, one attempt's transfer, makes of the request's result.
    /// `cache` is the cache at work on the request, if any, which keeps a parsed answer. By default,
    /// for a body that arrives whole (in memory, or in the `partialFile`): see the extension.
    func respond(to outcome: TransferOutcome, in pipeline: RequestPipeline, cache: (any RequestCaching)?) async -> AnyResult
    /// For a body written to the `partialFile`, once its answer is accepted: the file moved into
    /// place, unless `request` was stopped meanwhile; nil for a body kept in memory.
    func placeBody(of head: ResponseHead, for request: AnyRequest) throws(NetworkError) -> DownloadedFile?
    /// The answer failed stages 5 or 6 (a download keeps its partial file for a resume).
    func answerFailed()
    /// Removes the download's partial file, for a start from zero.
    func discardPartialFile()
    /// How a stream's connection, which ended with `result`, ended for its reconnection, and the
    /// server's last asked delay; asked only of a kind with a `reconnection` policy.
    func connectionEnd(after result: AnyResult, request: AnyRequest) -> (StreamReconnector.ConnectionEnd, serverDelay: Duration?)
    /// The request's result, from what its last attempt ended with.
    func finalResult(_ result: AnyResult) -> AnyResult
    /// A stream's items and connections so far, for the request's observer; nil for other kinds.
    var streamCounts: (items: Int, connections: Int)? { get }
}

extension RequestStrategy {
    var partialFile: URL? { nil }
    var reconnection: StreamReconnection? { nil }
    func serviceTimeLimit(_ settings: PipelineSettings) -> Duration? { settings.timeLimit }
    func serviceSizeLimit(_ settings: PipelineSettings) -> Int64? { settings.maxResponseBytes }
    func decompressionLimit(_ settings: PipelineSettings) -> Int64 { settings.maxDecompressedBytes }
    func begin(_ request: AnyRequest) {}
    func prepare(_ attempt: inout OutgoingRequest) throws(NetworkError) {}
    func start(_ request: OutgoingRequest, on transport: any Transport, priority: RequestPriority,
               events: any TransportEvents) -> any TransportTask {
        transport.start(request, priority: priority, events: events)
    }
    func placeBody(of head: ResponseHead, for request: AnyRequest) throws(NetworkError) -> DownloadedFile? { nil }
    func answerFailed() {}
    func discardPartialFile() {}
    func connectionEnd(after result: AnyResult, request: AnyRequest) -> (StreamReconnector.ConnectionEnd, serverDelay: Duration?) {
        (.noContent, nil)
    }
    func finalResult(_ result: AnyResult) -> AnyResult { result }
    var streamCounts: (items: Int, connections: Int)? { nil }
}

/// Stages 5 and 6 for a body that arrives whole, a plain request's in memory or a download's on
/// disk: the transfer's failure, or its answer validated (a body in memory with it; a body on disk
/// leaves the one in memory, an error body, unchecked, and is placed once the answer passes), the
/// whole body reported to the progress handlers, then parsed; a parsed answer goes to the cache.
extension RequestStrategy {
    func respond(to outcome: TransferOutcome, in pipeline: RequestPipeline, cache: (any RequestCaching)?) async -> AnyResult {
        let inMemory = partialFile == nil
        var response: Response
        do {
            let head = try pipeline.answerHead(of: outcome)
            if inMemory { pipeline.request.didReceiveWholeBody(bytes: outcome.bytesReceived) }
            response = try pipeline.accept(Response(head, data: outcome.body), checksBody: inMemory).get()
            if let file = try placeBody(of: head, for: pipeline.request) {
                pipeline.request.didReceiveWholeBody(bytes: file.byteCount)
                response.downloadedFile = file
            }
        } catch {
            answerFailed()
            return .failure(error)
        }
        let result = await pipeline.parse(response)
        if case .success = result { cache?.store(response) } else { answerFailed() }
        return result
    }
}

/// A plain request: its body is kept in memory, validated, then parsed by its parser chain; a
/// parsed answer goes to the cache at work on it.
struct PlainStrategy: RequestStrategy {
    func body(accepting acceptable: Range<Int>) -> Transfer.Body { .memory }
}
