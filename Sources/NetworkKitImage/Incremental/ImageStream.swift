import NetworkKit

extension Service {
    /// The images of `request` as they arrive, for `for try await`: previews, then the final
    /// image. The request starts when the loop begins; leaving the loop cancels it.
    ///
    /// It fails with an ``ImageStreamError`` that holds the last preview delivered.
    public func streamImage(_ request: StreamRequest<ImageStreamItem>) -> ImageStream {
        ImageStream(items: stream(request))
    }
}

/// The items of an image `StreamRequest` as an `AsyncSequence` whose failure carries the last
/// preview (``ImageStreamError``). It ends after the final image.
public struct ImageStream: AsyncSequence, Sendable {
    /// Previews, then the final image.
    public typealias Element = ImageStreamItem
    /// Why the stream ended without the final image.
    public typealias Failure = ImageStreamError

    /// The request's items, as `Service.stream(_:)` gives them.
    public let items: ItemStream<ImageStreamItem>

    /// Starts the request and returns the one iterator of its items.
    public func makeAsyncIterator() -> Iterator {
        Iterator(items: items.makeAsyncIterator())
    }

    /// Hands out the items in order, remembering the last preview for the error.
    public struct Iterator: AsyncIteratorProtocol {
        private var items: ItemStream<ImageStreamItem>.Iterator
        private var lastPreview: ImageStreamItem?

        init(items: ItemStream<ImageStreamItem>.Iterator) {
            self.items = items
        }

        /// The next item; nil after the final image.
        public mutating func next() async throws(ImageStreamError) -> ImageStreamItem? {
            do {
                let item = try await items.next()
                if let item, !item.isFinal { lastPreview = item }
                return item
            } catch {
                if case .parse(let parseError) = error, let streamError = parseError.underlying as? ImageStreamError {
                    throw streamError
                }
                throw ImageStreamError(error: error, lastPreview: lastPreview)
            }
        }
    }
}
