import ArgumentParser
import FixtureServer
import Foundation
import NetworkKit

/// `nk demo`: starts the fixture server on a free loopback port and tours the kit against it.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the embedded fixture server on 127.0.0.1 and tour NetworkKit's features against it."
    )

    func run() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        print("Fixture server on \(server.baseURL.absoluteString)\n")
        let service = Service(configuration: ServiceConfiguration(baseURL: server.baseURL))
        let tour = DemoTour(server: server, service: service)
        let failures = await tour.run()
        print(failures == 0 ? "\nAll steps behaved as described." : "\n\(failures) step(s) did not behave as described.")
        if failures > 0 { throw ExitCode(1) }
    }
}
