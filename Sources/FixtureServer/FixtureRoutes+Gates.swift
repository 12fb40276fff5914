import Foundation
import Hummingbird

extension FixtureRoutes {
    /// Answers that wait for the test, so it knows a request is under way while it starts others:
    ///
    /// - `GET /held/{gate}`: answers `{"gate": "<gate>"}` once the gate is open, or after 60 s.
    /// - `POST /gates/{gate}`: opens the gate (204); `POST /images/gate/{gate}` does the same.
    ///   A gate stays open.
    static func addGates(to router: Router<BasicRequestContext>, gates: NamedStore<Bool>) {
        router.post("gates/{gate}") { _, context in
            if let gate = context.parameters.get("gate") { gates.put(gate, true) }
            return Response(status: .noContent)
        }
        router.get("held/{gate}") { _, context in
            let gate = context.parameters.get("gate") ?? ""
            try await waitForGate(gate, in: gates)
            let encoded = (try? JSONEncoder().encode(["gate": gate])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return json(encoded)
        }
    }

    /// Returns once `gate` is open, or after 60 s. A test opens its gates; the fallback only
    /// keeps a test that failed before opening one from holding the server's graceful shutdown
    /// for ever. It is longer than a test's sequence takes on a loaded machine (a held request
    /// answered early frees its place in flight while the test still counts on it).
    static func waitForGate(_ gate: String, in gates: NamedStore<Bool>) async throws {
        for _ in 0..<12_000 where gates.get(gate) != true {
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
