import Foundation
import FixtureServer
@testable import NetworkKit
import NetworkKitNIO
import NetworkKitTesting
import Testing

/// The transports every conformance scenario runs through: the two real ones against the fixture
/// server playing the scenario's answer over the wire (`/scripted/NAME`), and the stub playing
/// the same `StubResponse` in memory.
enum ConformanceTransport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession = "URLSession"
    case nio = "NIO"
    case stub = "Stub"

    var testDescription: String { rawValue }

    /// A new transport of this kind.
    func make() -> any Transport {
        switch self {
        case .urlSession: URLSessionTransport()
        case .nio: NIOTransport()
        case .stub: StubTransport()
        }
    }
}

/// What a scenario's request came to: the finish, the transfers at the transport seam, the
/// progress the request reported, and how long it took.
struct ScenarioOutcome: Sendable {
    var result: Result<Data, NetworkError>
    var traces: [TransferTrace]
    var progress: [TransferProgress]
    var elapsed: Duration
    var transport: ConformanceTransport
    var service: Service
    var request: Request<Data>
    /// The request's completion handler calls so far (one, whatever happens later).
    var completions: Recorder<Bool>
    /// The lengths of the bodies the first script received (the server's or the stub's record).
    var receivedBodyLengths: [Int]

    /// The transfer that delivered the finish (the last one).
    var trace: TransferTrace { traces.last ?? TransferTrace() }
}

/// The behaviour every `Transport` owes the kit, as scenarios described by data: each runs
/// once per transport through a service whose transport is wrapped in a contract check.
@Suite("Transport conformance", .timeLimit(.minutes(1)))
struct ConformanceTests {
    @Test("each scenario finishes the same through every transport, keeping the events contract",
          arguments: ConformanceTransport.allCases, Scenario.all)
    func scenario(transport kind: ConformanceTransport, scenario: Scenario) async throws {
        if let reason = scenario.skips[kind] { try Test.cancel(Comment(rawValue: reason)) }
        let outcome = try await Self.run(scenario, on: kind)
        for trace in outcome.traces {
            #expect(trace.violations.isEmpty, "\(trace.violations)")
            #expect(trace.events.filter { if case .completion = $0 { true } else { false } }.count == 1)
        }
        await scenario.expect(outcome)
    }

    /// Plays `scenario` on a transport of `kind` and waits for its request to finish.
    static func run(_ scenario: Scenario, on kind: ConformanceTransport) async throws -> ScenarioOutcome {
        let transport = ContractCheckingTransport(kind.make())
        var server: FixtureServer?
        defer { server?.stop() }
        let baseURL: URL?
        if let stub = transport.base as? StubTransport {
            for (name, answer) in scenario.scripts { stub.answer(nil, .path("/scripted/" + name), with: answer) }
            baseURL = URL(string: "http://stub.invalid")
        } else {
            let started = try await FixtureServer.start()
            for (name, answer) in scenario.scripts { started.play(answer, as: name) }
            server = started
            baseURL = started.baseURL
        }
        let service = Service(configuration: ServiceConfiguration(baseURL: baseURL, timeout: .seconds(15)),
                              transport: transport)
        let request = scenario.request()
        let progress = Recorder<TransferProgress>()
        request.addProgressHandler { _, report in progress.append(report) }
        let completions = Recorder<Bool>()
        let started = ContinuousClock.now
        let result = await withCheckedContinuation { continuation in
            request.addCompletionHandler { _, result in
                completions.append(true)
                if completions.all.count == 1 { continuation.resume(returning: result) }
            }
            service.start(request)
            if let delay = scenario.cancelAfter {
                Task { try await Task.sleep(for: delay); request.cancel() }
            }
        }
        let elapsed = started.duration(to: .now)
        let first = scenario.scripts.first?.name ?? ""
        let received = server?.bodyLengths(receivedBy: first)
            ?? (transport.base as? StubTransport)?.requests(nil, .path("/scripted/" + first)).map(\.body.count) ?? []
        return ScenarioOutcome(result: result, traces: await transport.completedTraces(), progress: progress.all,
                               elapsed: elapsed, transport: kind, service: service,
                               request: request, completions: completions, receivedBodyLengths: received)
    }
}
