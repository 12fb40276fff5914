#if Observability
import Synchronization
import Tracing

/// A tracer that keeps only a count of the spans that ended, to measure what the kit's
/// observation costs by itself, apart from a tracer's bookkeeping (`ObservabilityBenchmarks`):
/// each span holds its attributes under one lock, as an exporting tracer's span would before
/// it is batched, and the context goes out as one `traceparent`-sized header.
final class LeanTracer: Tracer {
    let ended = Atomic<Int>(0)

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> LeanSpan {
        var context = context()
        let span = LeanSpan(operationName: operationName, parent: context[LeanSpan.Key.self], tracer: self)
        context[LeanSpan.Key.self] = span.id
        span.context = context
        return span
    }

    func forceFlush() {}

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
        where Extract.Carrier == Carrier {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
        where Inject.Carrier == Carrier {
        guard let id = context[LeanSpan.Key.self] else { return }
        injector.inject("00-0000000000000000000000000000000a-\(String(id, radix: 16))-01", forKey: "traceparent", into: &carrier)
    }
}

/// A span of `LeanTracer`.
final class LeanSpan: Span {
    enum Key: ServiceContextKey { typealias Value = UInt64 }
    private static let ids = Atomic<UInt64>(1)

    let id = LeanSpan.ids.add(1, ordering: .relaxed).newValue
    let parent: UInt64?
    private let tracer: LeanTracer
    private struct State {
        var name: String
        var attributes = SpanAttributes()
        var status: SpanStatus?
        var events: [SpanEvent] = []
        var context = ServiceContext.topLevel
    }
    private let state: Mutex<State>

    init(operationName: String, parent: UInt64?, tracer: LeanTracer) {
        self.parent = parent
        self.tracer = tracer
        state = Mutex(State(name: operationName))
    }

    var context: ServiceContext {
        get { state.withLock { $0.context } }
        set { state.withLock { $0.context = newValue } }
    }
    var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }
    var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }
    var isRecording: Bool { true }
    func setStatus(_ status: SpanStatus) { state.withLock { $0.status = status } }
    func addEvent(_ event: SpanEvent) { state.withLock { $0.events.append(event) } }
    func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        addEvent(SpanEvent(name: "exception"))
    }
    func addLink(_ link: SpanLink) {}
    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        tracer.ended.add(1, ordering: .relaxed)
    }
}
#endif
