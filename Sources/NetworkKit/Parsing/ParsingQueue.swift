import Dispatch

/// The shared background queue every parser runs on, so parsing never blocks the callback queue.
public enum ParsingQueue {
    /// A concurrent queue: responses of different requests parse side by side.
    public static let shared = DispatchQueue(
        label: "NetworkKit.parsing", qos: .userInitiated, attributes: .concurrent
    )
}
