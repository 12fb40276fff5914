import Foundation

extension Service {
    /// The items of `request` as they arrive, for `for try await`:
    ///
    /// ```swift
    /// for try await event in service.stream(StreamRequest(path: "/events")) {
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

    /// Sends the streaming `request`, whose items go to its item handlers, and returns its
    /// summary once its completion handlers have run (so every item handler call came before).
    /// As with a `Request`'s `send`, the pipeline runs in the calling task and has ended when
    /// this returns: the event monitors have heard `requestDidFinish`, and the request's span and
    /// metrics are recorded. Cancelling the calling `Task` cancels the request.
    ///
    /// ```swift
    /// let events = StreamRequest(path: "/events", reconnection: .never)
    /// events.addItemHandler { _, event in print(event.data) }
    /// let summary = try await service.send(events)
    /// ```
    public func send<Item>(_ request: StreamRequest<Item>) async throws(NetworkError) -> StreamSummary {
        _ = await anyResult(of: request)
        return try await completion(of: request).get()
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
        request.sink.attachSequence(of: request)
        let consumer = Consumer(request: request)
        service.start(request)
        return Iterator(consumer: consumer)
    }

    /// Hands out the items in order; dropping it before the end cancels the request. It takes
    /// the items the stream holds all at once and hands them out one by one.
    ///
    /// `next()` is inlinable so that handing out a taken item, the path of nearly every call, is
    /// specialized for the item type in the caller's module.
    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline let consumer: Consumer
        @usableFromInline var taken: [Item] = []
        @usableFromInline var index = 0

        init(consumer: Consumer) {
            self.consumer = consumer
        }

        /// The next item; nil once the stream ended as it should.
        @inlinable
        public mutating func next() async throws(NetworkError) -> Item? {
            if index < taken.count {
                defer { index += 1 }
                return taken[index]
            }
            taken = try await consumer.nextItems()
            guard !taken.isEmpty else { return nil }
            index = 1
            return taken[0]
        }
    }

    /// Cancels the request when the iterator is dropped before the stream ended.
    @usableFromInline
    final class Consumer: Sendable {
        let request: StreamRequest<Item>

        init(request: StreamRequest<Item>) {
            self.request = request
        }

        /// The items held now, waiting for some while none is; none at the end.
        @usableFromInline
        func nextItems() async throws(NetworkError) -> [Item] {
            let request = self.request
            return try await withTaskCancellationHandler {
                await request.sink.nextItems()
            } onCancel: {
                request.cancel()
            }.get()
        }

        deinit {
            request.cancel()
        }
    }
}
