import Foundation
import NetworkKit

/// The decode of one image as its bytes arrive, as a value: what ``LockedIncrementalDecoder``
/// keeps behind its lock.
protocol IncrementalDecodeState {
    /// Takes the next bytes; returns the stage they completed, if any.
    mutating func append(_ bytes: Data) throws -> ImageStreamStage?
    /// The image as of the last completed stage.
    mutating func preview() throws -> DecodedImage
    /// No more previews will be asked for: their resources can go.
    mutating func stopPreviews()
    /// The body has ended: the final image.
    mutating func finish() throws -> DecodedImage
}

/// An ``IncrementalDecodeState`` behind a lock, as the parser's decoder. The parser calls one
/// method at a time; the lock makes the class safe to share as `IncrementalImageDecoder`
/// requires (`Sendable`).
final class LockedIncrementalDecoder<State: IncrementalDecodeState>: IncrementalImageDecoder {
    /// The state; every access takes its lock.
    let state: Protected<State>

    init(state: State) {
        self.state = Protected(state)
    }

    func append(_ bytes: Data) throws -> ImageStreamStage? {
        try state.withLock { try $0.append(bytes) }
    }

    func preview() throws -> DecodedImage {
        try state.withLock { try $0.preview() }
    }

    func stopPreviews() {
        state.withLock { $0.stopPreviews() }
    }

    func finish() throws -> DecodedImage {
        try state.withLock { try $0.finish() }
    }
}
