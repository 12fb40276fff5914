import Foundation
import NetworkKit

/// `nk demo`: requests meant to fail, each checked to fail the way its title says.
extension DemoTour {
    var errorSteps: [Step] {
        [
            ("Cancel in flight", {
                let request = Request(path: "/slow?ms=5000")
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { request.cancel() }
                return "\(try await failure(of: request, \.isCancellation)); state \(request.state)"
            }),
            ("A server slower than the timeout", {
                // The server answers long after the 1 s timeout, even on a busy machine.
                let request = Request(path: "/slow?ms=10000")
                request.timeout = .seconds(1)
                return try await failure(of: request, \.isTimeout)
            }),
            ("HTTP 404 with a body", {
                try await failure(of: Request(path: "/status/404")) { if case .httpStatus(404, _, _) = $0 { true } else { false } }
            }),
            ("Malformed JSON", { try await failure(of: Request(path: "/json/malformed", parser: JSONParser())) }),
            ("Connection dropped mid-response", { try await failure(of: Request(path: "/drop")) }),
        ]
    }

    /// What a request that is meant to fail failed with. Throws when it succeeded, or failed in
    /// a way `expected` does not accept.
    func failure<Output>(of request: Request<Output>,
                         _ expected: (NetworkError) -> Bool = { _ in true }) async throws -> String {
        switch await service.result(of: request) {
        case .success:
            throw DemoError.unexpected("the request succeeded")
        case .failure(let error):
            guard expected(error) else { throw DemoError.unexpected("failed otherwise: \(error)") }
            return "NetworkError: \(error)"
        }
    }
}
