import Foundation
import Logging
import NetworkKit
import ServiceLifecycle

// MARK: - Shutting a Service Down

func shutdownAtOnce(api: NetworkKit.Service) async {
    await api.shutdown(gracePeriod: .seconds(10))
}

func runServer(api: NetworkKit.Service, server: some ServiceLifecycle.Service, logger: Logger) async throws {
    let group = ServiceGroup(services: [server, api], gracefulShutdownSignals: [.sigterm], logger: logger)
    try await group.run()
}
