extension ServiceConfiguration {
    /// What the pipeline reads of this configuration (`Service` makes it once per change).
    var pipelineSettings: PipelineSettings {
        PipelineSettings(chain: chain, monitors: requestMonitors, envelope: envelope,
                         responseValidation: responseValidation, timeout: timeout, timeLimit: timeLimit,
                         downloadTimeLimit: downloadTimeLimit, maxResponseBytes: maxResponseBytes,
                         maxDownloadBytes: maxDownloadBytes, maxDecompressedBytes: maxDecompressedBytes,
                         environment: environment, responseCache: responseCache,
                         ignoredCacheKeyArguments: ignoredCacheKeyArguments, cookies: cookies,
                         redirectPolicy: redirectPolicy, unprocessedResendLimit: unprocessedResendLimit,
                         maxRequestsInFlight: maxRequestsInFlight, maxRequestsInFlightPerHost: maxRequestsInFlightPerHost,
                         clock: clock)
    }
}
