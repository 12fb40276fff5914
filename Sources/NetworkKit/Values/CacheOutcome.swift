import Foundation

/// What the response cache did for a request (``RequestMetrics/cache``).
public enum CacheOutcome: Sendable, Equatable {
    /// The request has no cache policy, or cannot be cached (a body from a file, a download).
    case notUsed
    /// No usable entry: the network answered.
    case miss
    /// A fresh entry answered; nothing was sent.
    case hit
    /// A stale entry was revalidated: the server answered `304 Not Modified`.
    case revalidated
    /// The network answered although an entry existed (``CachePolicy/Mode-swift.enum/reload``,
    /// or a stale entry the server replaced).
    case refreshed
}
