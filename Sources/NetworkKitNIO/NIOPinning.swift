#if NIO
import Crypto
import Foundation
import NetworkKit
import NIOCore
import NIOSSL

/// The public-key pins of a transport's trust settings, checked on each new TLS connection
/// after its handshake and before any request is sent on it (AsyncHTTPClient's connection
/// debug initializers: a failed check fails the connection, and the requests waiting for it,
/// with `NIOPinMismatch`).
///
/// The initializers are the client's and are not told which host a connection is for, so the
/// pins that apply to a connection are chosen by the certificate it presented, which the
/// handshake has checked names the requested host (unless the host is insecure): the pins of
/// each host entry whose name the certificate covers, and the service's pins when it also
/// covers a name that has no entry (a wildcard covers such names). Every set that applies must
/// hold the key. A certificate that names several hosts must therefore satisfy the pins of
/// each; one whose names cannot be read must satisfy every pin set.
struct NIOPinCheck: Sendable {
    /// The service's pins (SHA-256 of SubjectPublicKeyInfo); empty when it pins nothing.
    let servicePins: Set<Data>
    /// The pins of each host that has an entry of its own, by normalized host; an empty set when
    /// the entry pins nothing.
    let hostPins: [String: Set<Data>]

    /// The pins of `trust` and its host entries.
    init(_ trust: TrustSettings) {
        servicePins = Set(trust.pinnedKeys.map(\.sha256))
        var hostPins: [String: Set<Data>] = [:]
        for (host, entry) in trust.hosts {
            hostPins[TrustSettings.normalized(host), default: []].formUnion(entry.pinnedKeys.map(\.sha256))
        }
        self.hostPins = hostPins
    }

    /// True when some setting pins a key.
    var pinsAnything: Bool {
        !servicePins.isEmpty || hostPins.values.contains { !$0.isEmpty }
    }

    /// Checks the connection on `channel` (a debug initializer). A connection without TLS passes;
    /// one whose key no applicable set holds fails, and is closed once the client has dropped it.
    @Sendable func check(_ channel: any Channel) -> EventLoopFuture<Void> {
        let loop = channel.eventLoop
        let result: EventLoopFuture<Void>
        if loop.inEventLoop {
            result = loop.makeCompletedFuture(Result { try check(connectionOn: channel) })
        } else {
            result = loop.submit { try check(connectionOn: channel) }
        }
        result.whenFailure { _ in
            // After AsyncHTTPClient has failed the connection (it runs on this loop as the
            // future completes): it does not close a connection its initializer failed.
            loop.execute { channel.close(promise: nil) }
        }
        return result
    }

    /// Throws `NIOPinMismatch` when the server's key on `channel` is not pinned. Runs on the
    /// channel's event loop.
    private func check(connectionOn channel: any Channel) throws {
        guard let handler = try? channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self) else {
            return  // plain HTTP: nothing to pin
        }
        guard let leaf = handler.peerCertificate else { throw NIOPinMismatch(presented: "(no certificate)") }
        let presented = Data(SHA256.hash(data: try leaf.extractPublicKey().toSPKIBytes()))
        for pins in pinSets(for: NIOCertificateNames(leaf)) where !pins.contains(presented) {
            throw NIOPinMismatch(presented: presented.base64EncodedString())
        }
    }

    /// The pin sets a certificate with `names` must satisfy (see the type's rule).
    func pinSets(for names: NIOCertificateNames) -> [Set<Data>] {
        guard !names.isEmpty else { return ([servicePins] + Array(hostPins.values)).filter { !$0.isEmpty } }
        var sets = hostPins.filter { names.covers($0.key) }.map(\.value)
        if names.coversAnyName(besides: Set(hostPins.keys)) { sets.append(servicePins) }
        return sets.filter { !$0.isEmpty }
    }
}

/// A server's key matched none of the pins that apply to its connection; `presented` is the
/// SHA-256 of its SubjectPublicKeyInfo, base64.
struct NIOPinMismatch: Error, CustomStringConvertible {
    let presented: String

    var description: String { "the server's public key sha256//\(presented) is not pinned" }
}
#endif
