import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Runs a Hummingbird application on a free loopback port in a service group of its own.
enum ServerLaunch {
    /// What a started application is: its port, the group to stop it gracefully, its task.
    struct Running: Sendable {
        let port: Int
        let group: ServiceGroup
        let task: Task<Void, any Error>
    }

    /// Starts the application `make` builds around the `onServerRunning` callback it is handed,
    /// and returns once it listens. Throws `couldNotBind` (after shutting it down) when it does
    /// not get a port.
    static func start(logger: Logger, _ make: (@escaping @Sendable (any Channel) async -> Void) throws -> some Service)
        async throws -> Running {
        let (portStream, portContinuation) = AsyncStream<Int>.makeStream()
        let app = try make { channel in
            portContinuation.yield(channel.localAddress?.port ?? 0)
            portContinuation.finish()
        }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task { try await group.run() }
        var port = 0
        for await value in portStream { port = value }
        guard port > 0 else {
            await group.triggerGracefulShutdown()
            throw FixtureServerError.couldNotBind
        }
        return Running(port: port, group: group, task: task)
    }
}
