#if Observability
import CoreMetrics
import Tracing

/// The `Observability` trait's spans and metrics, for every request of every service: a request
/// traced or measured when the task that starts it has a tracer (`InstrumentationSystem.tracer`,
/// bootstrapped or bound with `withTracer`) or a metrics factory (`MetricsSystem.factory`, likewise)
/// other than the no-op ones. What it records is listed in <doc:ObservingRequests>.
struct Observability: RequestObservation {
    /// How secrets in `url.full` are hidden: the service's ``ServiceConfiguration/redaction``.
    let redaction: Redaction

    func observer(method: HTTPRequest.Method) -> (any RequestObserving)? {
        let tracer = InstrumentationSystem.tracer
        let factory = MetricsSystem.factory
        let tracing = tracer is NoOpTracer ? nil : tracer
        let metrics = factory is NOOPMetricsHandler ? nil : RequestMeters(factory: factory, method: method)
        guard tracing != nil || metrics != nil else { return nil }
        return RequestObserver(tracer: tracing, parent: ServiceContext.current ?? .topLevel, meters: metrics,
                               method: method, redaction: redaction)
    }
}
#endif

extension ServiceConfiguration {
    /// What observes this service's requests: the `Observability` trait's spans and metrics, or
    /// nothing without the trait.
    var requestObservation: (any RequestObservation)? {
        #if Observability
        observesRequests ? Observability(redaction: redaction) : nil
        #else
        nil
        #endif
    }
}
