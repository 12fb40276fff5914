import Foundation

/// A public key a server may present: the SHA-256 of its DER SubjectPublicKeyInfo, as curl's
/// `--pinnedpubkey sha256//…` and HPKP write it (base64 of the 32 bytes). Get it from a
/// certificate with
/// `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
public struct PublicKeyPin: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes of the hash.
    public let sha256: Data

    /// The pin whose hash `sha256Base64` spells (standard base64, padded: 44 characters).
    /// Throws ``TrustSettingsError/malformedPin(_:reason:)`` when it is not base64 of 32 bytes.
    public init(sha256Base64: String) throws(TrustSettingsError) {
        let text = sha256Base64.trimmingCharacters(in: .whitespaces)
        guard let bytes = Data(base64Encoded: text) else {
            throw .malformedPin(sha256Base64, reason: "not base64")
        }
        guard bytes.count == 32 else {
            throw .malformedPin(sha256Base64, reason: "a SHA-256 hash is 32 bytes, this is \(bytes.count)")
        }
        sha256 = bytes
    }

    /// The hash in base64, as ``init(sha256Base64:)`` takes it and `TLSCheck.pinMismatch`
    /// reports a server's key.
    public var base64: String { sha256.base64EncodedString() }

    /// `sha256//BASE64`, curl's spelling.
    public var description: String { "sha256//" + base64 }

    /// The pins of curl's `--pinnedpubkey` syntax: `sha256//BASE64`, several joined by `;`
    /// (`sha256//AAA…=;sha256//BBB…=`). Spaces around each pin and empty ones (`;;`, a final `;`)
    /// are ignored. curl also takes the
    /// path of a key file there; this does not (hash the key and give the hash). Throws
    /// ``TrustSettingsError/malformedPin(_:reason:)`` naming the first pin that is wrong.
    public static func pins(curlSyntax: String) throws(TrustSettingsError) -> [PublicKeyPin] {
        let parts = curlSyntax.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !parts.isEmpty else {
            throw .malformedPin(curlSyntax, reason: "no pin in it (expected sha256//BASE64, several joined by ;)")
        }
        var pins: [PublicKeyPin] = []
        for part in parts {
            guard part.hasPrefix("sha256//") else {
                throw .malformedPin(String(part), reason: "a pin starts with sha256// (a key file's path is not taken)")
            }
            do {
                pins.append(try PublicKeyPin(sha256Base64: String(part.dropFirst("sha256//".count))))
            } catch {
                guard case .malformedPin(_, let reason) = error else { throw error }
                throw .malformedPin(String(part), reason: reason)
            }
        }
        return pins
    }
}
