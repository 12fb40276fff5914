import Foundation

/// A request of any output type: its identity, options, lifecycle and cancellation. Every
/// request is a ``Request``, the typed layer on top, which adds the parser and the typed
/// handlers; a service, a batch or a chain works with requests as `AnyRequest`.
///
/// `@unchecked Sendable`: every stored property is a `let` of a Sendable type; the state machine
/// is read and written only inside its `Protected`'s lock (see `withStateMachine`). The class is
/// not final: ``Request`` is its typed subclass.
public class AnyRequest: @unchecked Sendable {
    /// This request's process-unique identity.
    public let id = RequestID.next()
    /// The parser chain, without its output type (`Request.parser` has it).
    let anyParser: any ResponseParser
    private let stateMachine: Protected<StateMachine>

    init(options: RequestOptions, parser: any ResponseParser) {
        anyParser = parser
        stateMachine = Protected(StateMachine(options: options))
    }

    /// Runs `body` on the state machine under the request's one lock.
    func withStateMachine<Value>(_ body: (inout StateMachine) throws -> Value) rethrows -> Value {
        try stateMachine.withLock(body)
    }

    /// Where the request is in its lifecycle.
    public var state: RequestState {
        withStateMachine { $0.state }
    }

    /// The response head of the latest attempt, once it has arrived.
    public var responseHead: ResponseHead? {
        withStateMachine { $0.attempt.head }
    }

    /// The business code and message of the latest answer, where a parser read them through an
    /// envelope and the code meant success (see ``BusinessStatus``).
    public var businessStatus: BusinessStatus? {
        withStateMachine { $0.attempt.businessStatus }
    }

    /// How many times the request has been sent so far (retries included).
    public var attemptCount: Int {
        withStateMachine { $0.attempt.count }
    }

    /// What was measured about the request, once it has finished: duration, attempts, bytes, status.
    public var metrics: RequestMetrics? {
        withStateMachine { $0.metrics }
    }

    /// Cancels the request. Running: the transfer stops and the handlers get `NetworkError.cancelled`.
    /// Not started yet: it finishes cancelled as soon as it is started. Finished already: nothing happens.
    public func cancel() {
        stop(with: .cancelled)
    }

    /// One option of what the request asks for; the pipeline reads them all when it starts.
    subscript<Value>(option path: WritableKeyPath<RequestOptions, Value>) -> Value {
        get { withStateMachine { $0.options[keyPath: path] } }
        set { withStateMachine { $0.options[keyPath: path] = newValue } }
    }

    /// The options as they are now.
    var options: RequestOptions {
        withStateMachine { $0.options }
    }
}
