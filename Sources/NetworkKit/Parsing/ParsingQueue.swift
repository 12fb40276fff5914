import Dispatch

/// The shared background queue parsers run on, so parsing never blocks the main actor.
///
/// Each service's URLSession delegate queue is a serial queue that targets this one. A parser
/// that declares itself lightweight (`ResponseParser.isLightweight`: data, string, JSON, models)
/// parsing a body of at most `inlineBodyLimit` bytes runs right there, on that delegate queue,
/// saving a thread hop per request; every other parse is dispatched to `shared` itself.
package enum ParsingQueue {
    /// The largest body a lightweight parser parses on the delegate queue (64 KB).
    package static let inlineBodyLimit = 64 * 1024

    /// A concurrent queue: responses of different requests parse side by side.
    package static let shared = DispatchQueue(
        label: "NetworkKit.parsing", qos: .userInitiated, attributes: .concurrent
    )
}
