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

    @Option(help: "The transport: nio (SwiftNIO's AsyncHTTPClient) or urlsession. Default: nio on Linux, urlsession elsewhere.")
    var transport: TransportChoice = .platformDefault

    @Flag(help: "Only start the fixture server and keep it running (for trying nk get/download against it).")
    var serve = false

    func run() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        if serve {
            FileHandle.standardOutput.write(Data("Fixture server on \(server.baseURL.absoluteString) (Ctrl-C stops it)\n".utf8))
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
        print("Fixture server on \(server.baseURL.absoluteString)\n")
        print("Transport: \(transport.rawValue) (--transport nio|urlsession)\n")
        let service = transport.service(ServiceConfiguration(baseURL: server.baseURL))
        let tour = DemoTour(server: server, service: service)
        let failures = await tour.run()
        print(failures == 0 ? "\nAll steps behaved as described." : "\n\(failures) step(s) did not behave as described.")
        if failures > 0 { throw ExitCode(1) }
    }
}
