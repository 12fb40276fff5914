import Foundation

extension Service {
    /// The items of `request` as they arrive, for `for try await`:
    ///
    /// ```swift
    /// for try await event in service.stream(StreamRequest(events: .path("/events"))) {
    ///     print(event.data)
    /// }
    /// ```
    ///
    /// The request starts when the loop begins. Leaving the loop, or cancelling its task, cancels
    /// the request; a loop that ends normally has seen every item. The request's handlers are
    /// called as well. A request can be iterated once.
    public func stream<Item>(_ request: StreamRequest<Item>) -> ItemStream<Item> {
        ItemStream(request: request, service: self)
    }
}

/// The items of a ``StreamRequest`` as an `AsyncSequence` whose failure is ``NetworkError``: it
/// ends when the stream ends as it should, and throws the request's error otherwise.
public struct ItemStream<Item: Sendable>: AsyncSequence, Sendable {
    /// The sequence yields the request's items.
    public typealias Element = Item
    /// Why the stream failed.
    public typealias Failure = NetworkError

    /// The request whose items this sequence yields.
    public let request: StreamRequest<Item>
    let service: Service

    /// Starts the request and returns the one iterator of its items.
    public func makeAsyncIterator() -> Iterator {
        request.sink.attachSequence()
        let consumer = Consumer(request: request)
        service.start(request)
        return Iterator(consumer: consumer)
    }

    /// Hands out the items in order; dropping it before the end cancels the request.
    public struct Iterator: AsyncIteratorProtocol {
        let consumer: Consumer

        /// The next item; nil once the stream ended as it should.
        public mutating func next() async throws(NetworkError) -> Item? {
            try await consumer.next()
        }

        /// The next item, from any isolation.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> Item? {
            try await consumer.next()
        }
    }

    /// Cancels the request when the iterator is dropped before the stream ended.
    final class Consumer: Sendable {
        let request: StreamRequest<Item>

        init(request: StreamRequest<Item>) {
            self.request = request
        }

        func next() async throws(NetworkError) -> Item? {
            let request = self.request
            return try await withTaskCancellationHandler {
                await request.sink.next()
            } onCancel: {
                request.cancel()
            }.get()
        }

        deinit {
            request.cancel()
        }
    }
}
