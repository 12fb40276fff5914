import Foundation
import FixtureServer
@testable import NetworkKit
import NetworkKitNIO
import Testing

/// The transports the transport-level tests run against, each test once per transport.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession = "URLSession"
    case nio = "NIO"

    var testDescription: String { rawValue }

    /// Whether a download dropped by the server after `offset` bytes resumed from the right place:
    /// URLSession hands over every byte before the error; AsyncHTTPClient drops what it had
    /// buffered but not yet handed over when the connection fails, so the kit resumes a little
    /// earlier (the file is still byte-identical: the tests check it).
    func resumesFrom(_ resumedFrom: Int64, droppedAt offset: Int64) -> Bool {
        switch self {
        case .urlSession: resumedFrom == offset
        case .nio: resumedFrom > 0 && resumedFrom <= offset
        }
    }

    /// A service with `configuration` sending through this transport.
    func service(_ configuration: ServiceConfiguration) -> Service {
        switch self {
        case .urlSession: Service(configuration: configuration)
        case .nio: Service(configuration: configuration, transport: NIOTransport())
        }
    }
}

/// A fixture server plus a service whose base URL points at it.
struct Fixture {
    let server: FixtureServer
    let service: Service

    static func start(timeout: Duration = .seconds(15), transport: TransportKind = .urlSession) async throws -> Fixture {
        let server = try await FixtureServer.start()
        let service = transport.service(ServiceConfiguration(baseURL: server.baseURL, timeout: timeout))
        return Fixture(server: server, service: service)
    }

    /// Runs `request` to its finish while no other memory-heavy test runs, timing it and measuring
    /// how much the resident memory grew meanwhile.
    func finishMeasured<Output: Sendable>(_ request: Request<Output>) async -> MeasuredFinish<Output> {
        await MemoryHeavy.exclusive {
            let before = ResidentMemory.current
            let started = ContinuousClock.now
            let result = await service.completion(of: request)
            let elapsed = started.duration(to: .now)
            let growth = ResidentMemory.current.flatMap { after in before.map { after - $0 } }
            return MeasuredFinish(result: result, elapsed: elapsed, growth: growth)
        }
    }
}

/// An RSS growth that a request bounded in memory stays under even though other suites allocate
/// in this process meanwhile (up to ~110 MiB seen in full runs on a loaded 2-core machine), and
/// that a client holding an endless body or a 512 MiB bomb whole passes.
let runawayMemoryGrowth = 192 << 20

/// What a request came to, how long it took to finish, and how many bytes the resident memory
/// grew meanwhile (nil where it cannot be read).
struct MeasuredFinish<Output: Sendable>: Sendable {
    var result: Result<Output, NetworkError>
    var elapsed: Duration
    var growth: Int?
}

/// Thread-safe list for recording what handlers saw.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Protected<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.snapshot }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
    var success: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}

/// The entrance item of the fixture feed.
struct Entrance: Codable, Sendable, Equatable {
    var name: String
    var type: Int
    var isFlagship: Bool
    var pic: String
}


/// Runs `work`, seconds of computation, on a thread of its own and returns what it returns. On
/// Swift's cooperative pool (two threads on a two-core machine) such a test starves the
/// in-process servers of the tests beside it, whose requests then time out. `work` checks
/// nothing itself (an `#expect` off the test's task is not the test's): it returns what the test
/// checks.
func onThreadOfItsOwn<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// Runs memory-heavy tests one at a time, so one's allocations do not show in another's RSS
/// figures (Swift Testing runs suites in parallel in one process).
actor MemoryHeavy {
    static let shared = MemoryHeavy()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` when no other memory-heavy test runs.
    static func exclusive<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        await shared.acquire()
        defer { Task { await shared.release() } }
        return try await body()
    }

    private func acquire() async {
        guard busy else { busy = true; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}

extension NetworkError {
    /// A batch's or a chain's failure, read the same way for both: the position of the request
    /// (or step) that failed, its identity, and how it failed; nil for any other failure.
    var groupFailure: (position: Int, requestID: RequestID?, error: NetworkError)? {
        switch self {
        case .batchFailed(let position, let id, let error), .chainFailed(let position, let id, let error): (position, id, error)
        default: nil
        }
    }
}

/// Whether code runs on the main queue, which is where the main actor runs. On Linux the main
/// queue may be served by a thread other than the process's first (`dispatch_main` lets the first
/// thread go), so `Thread.isMainThread` does not tell.
enum MainQueue {
    /// The key the main queue carries. `@unchecked Sendable`: it holds one reference, set once
    /// and never changed, to a key only ever read.
    private struct Key: @unchecked Sendable {
        let key = DispatchSpecificKey<Bool>()
    }

    private static let marker: Key = {
        let marker = Key()
        DispatchQueue.main.setSpecific(key: marker.key, value: true)
        return marker
    }()

    /// True on the main queue.
    static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: marker.key) == true
    }
}
