extension ServiceConfiguration {
    /// What the pipeline reads of this configuration (`Service` makes it once per change).
    var pipelineSettings: PipelineSettings {
        PipelineSettings(chain: chain, monitors: requestMonitors, envelope: envelope, jsonDecoder: jsonDecoder,
                         responseValidation: responseValidation, timeout: timeout, timeLimit: timeLimit,
                         downloadTimeLimit: downloadTimeLimit, maxResponseBytes: maxResponseBytes,
                         maxDownloadBytes: maxDownloadBytes, maxDecompressedBytes: maxDecompressedBytes,
                         environment: environment, responseCache: responseCache,
                         ignoredCacheKeyArguments: ignoredCacheKeyArguments, cookies: cookies,
                         redirectPolicy: redirectPolicy, unprocessedResendLimit: unprocessedResendLimit,
                         inFlightLimits: inFlightLimits, clock: clock, dates: ClockDates(clock),
                         observation: requestObservation)
    }

    /// The limits on requests in flight, as the pipeline reads them; nil when neither is set.
    private var inFlightLimits: InFlightLimits.Limits? {
        guard maxRequestsInFlight != nil || maxRequestsInFlightPerHost != nil else { return nil }
        return InFlightLimits.Limits(total: maxRequestsInFlight, perHost: maxRequestsInFlightPerHost)
    }

    /// The monitors every request of the service tells, in order: ``eventMonitors``, then a
    /// ``LoggingMonitor`` when the service has a ``logger``.
    var requestMonitors: [any EventMonitor] {
        guard let logger else { return eventMonitors }
        return eventMonitors + [LoggingMonitor(logger: logger, redaction: redaction)]
    }
}
