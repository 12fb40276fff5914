#if ServiceLifecycle
import ServiceLifecycle

/// A ``Service`` runs in a swift-service-lifecycle `ServiceGroup` beside a server's other parts,
/// with the package's `ServiceLifecycle` trait: ``run()`` returns once the group signals a
/// graceful shutdown and the service has shut down with the configuration's
/// ``ServiceConfiguration/shutdownGracePeriod``.
///
/// ```swift
/// let group = ServiceGroup(services: [api, server], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
extension Service: ServiceLifecycle.Service {
    /// Waits for the group's graceful shutdown, then shuts the service down
    /// (``shutdown(gracePeriod:)``). Cancelled (the group shuts down at once), it shuts down
    /// with no grace period.
    public func run() async throws {
        do {
            try await gracefulShutdown()
            await shutdown(gracePeriod: configuration.shutdownGracePeriod)
        } catch {
            await shutdown(gracePeriod: .zero)
        }
    }
}
#endif
