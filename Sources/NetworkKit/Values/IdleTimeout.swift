import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request's idle timeout: a transfer that neither receives nor sends a byte for `duration`
/// fails with `error` (`URLError(.timedOut)`). It is read from ``OutgoingRequest/timeout``
/// here only, so the kit's idle watch and the stub transport apply one rule.
package struct IdleTimeout: Sendable, Equatable {
    /// An interval this long or longer asks for no timeout, as an infinite one does.
    static let never: TimeInterval = 1e9

    /// How long a transfer may stay silent.
    package let duration: Duration

    /// The idle timeout `request` asks for; nil when it asks for none (a timeout of nil, zero or
    /// less, or from 1e9 s up).
    package init?(_ request: OutgoingRequest) {
        guard let timeout = request.timeout else { return nil }
        self.init(seconds: timeout.inSeconds)
    }

    /// A timeout of `seconds`; nil for zero or less, NaN, infinity and anything from 1e9 s up.
    package init?(seconds: TimeInterval) {
        guard seconds > 0, seconds < Self.never else { return nil }   // false for NaN too
        duration = .seconds(seconds)
    }

    /// True when a silence of `silence` (an endless one when nil) reaches the timeout.
    package func isReached(by silence: Duration?) -> Bool {
        guard let silence else { return true }
        return silence >= duration
    }

    /// What a transfer that went silent for the timeout fails with.
    package var error: TransportError {
        TransportError(.timedOut, detail: "nothing was received or sent for \(duration)")
    }
}
