import Crypto
import Foundation
import X509

/// Certificates for the TLS fixtures, made afresh each time (nothing is committed) and written as
/// PEM files to a directory of their own, which ``remove()`` deletes: a test CA and the leaves it
/// signs for 127.0.0.1 and localhost (valid, expired, not yet valid, for another name), a second
/// CA that signs nothing the servers present, and a client CA with a client leaf. Keys are P-256.
public struct TestCertificates: Sendable {
    /// The directory the PEM files are in.
    public let directory: URL
    /// The CA that signs the server leaves.
    public let ca: TestIdentity
    /// A CA that signs none of the servers' certificates.
    public let otherCA: TestIdentity
    /// A leaf for 127.0.0.1 (IP SAN) and localhost (DNS SAN), valid from an hour ago for a day.
    public let server: TestIdentity
    /// A leaf for the same names whose validity ended yesterday.
    public let expired: TestIdentity
    /// A leaf for the same names whose validity starts tomorrow.
    public let notYetValid: TestIdentity
    /// A leaf for `wrong.example` only.
    public let wrongName: TestIdentity
    /// The CA that signs client certificates, which the mutual-TLS server trusts.
    public let clientCA: TestIdentity
    /// A client leaf signed by ``clientCA``.
    public let client: TestIdentity
    /// A client leaf signed by ``otherCA``, which the mutual-TLS server refuses.
    public let strayClient: TestIdentity

    /// Makes the certificates and writes them to a new directory under the temporary directory.
    public static func make() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("nk-tls-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            return try make(in: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    private static func make(in directory: URL) throws -> TestCertificates {
        let now = Date()
        let hour: TimeInterval = 3600, day: TimeInterval = 86_400
        let maker = CertificateMaker(directory: directory)
        let ca = try maker.authority("NetworkKit test CA", file: "ca")
        let otherCA = try maker.authority("NetworkKit other CA", file: "other-ca")
        let clientCA = try maker.authority("NetworkKit client CA", file: "client-ca")
        let loopback: [GeneralName] = [.dnsName("localhost"), .ipAddress(.init(contentBytes: [127, 0, 0, 1]))]
        return TestCertificates(
            directory: directory, ca: ca, otherCA: otherCA,
            server: try maker.leaf("server", names: loopback, from: now - hour, to: now + day, issuer: ca),
            expired: try maker.leaf("expired", names: loopback, from: now - 30 * day, to: now - day, issuer: ca),
            notYetValid: try maker.leaf("not-yet-valid", names: loopback, from: now + day, to: now + 30 * day, issuer: ca),
            wrongName: try maker.leaf("wrong-name", names: [.dnsName("wrong.example")], from: now - hour, to: now + day,
                                      issuer: ca),
            clientCA: clientCA,
            client: try maker.leaf("client", names: [.dnsName("client.example")], from: now - hour, to: now + day,
                                   issuer: clientCA, usage: .clientAuth),
            strayClient: try maker.leaf("stray-client", names: [.dnsName("client.example")], from: now - hour,
                                        to: now + day, issuer: otherCA, usage: .clientAuth)
        )
    }

    /// Deletes the directory and the PEM files in it.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// One certificate of ``TestCertificates`` with its key, as PEM text and as files.
public struct TestIdentity: Sendable {
    /// The certificate's PEM text.
    public let certificatePEM: String
    /// The private key's PEM text (PKCS#8).
    public let keyPEM: String
    /// The file holding ``certificatePEM``.
    public let certificateFile: URL
    /// The file holding ``keyPEM``.
    public let keyFile: URL
    /// The SHA-256 of the certificate's SubjectPublicKeyInfo, base64: the key's pin.
    public let publicKeyPin: String
    /// The certificate's subject, for signing others.
    let name: DistinguishedName
    /// The private key, for signing others.
    let key: P256.Signing.PrivateKey
}

/// Makes and writes the certificates.
private struct CertificateMaker {
    let directory: URL

    /// A self-signed CA, valid from a day ago for a year.
    func authority(_ commonName: String, file: String) throws -> TestIdentity {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
        }
        return try write(file, subject: name, key: key, from: Date() - 86_400, to: Date() + 365 * 86_400,
                         extensions: extensions, issuerName: name, issuerKey: key)
    }

    /// A leaf for `names`, valid between the dates, signed by `issuer`.
    func leaf(_ file: String, names: [GeneralName], from start: Date, to end: Date, issuer: TestIdentity,
              usage: ExtendedKeyUsage.Usage = .serverAuth) throws -> TestIdentity {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("NetworkKit test \(file)") }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([usage])
            SubjectAlternativeNames(names)
            AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: Certificate.PublicKey(issuer.key.publicKey)).keyIdentifier)
        }
        return try write(file, subject: name, key: key, from: start, to: end, extensions: extensions,
                         issuerName: issuer.name, issuerKey: issuer.key)
    }

    private func write(_ file: String, subject: DistinguishedName, key: P256.Signing.PrivateKey, from start: Date,
                       to end: Date, extensions: Certificate.Extensions, issuerName: DistinguishedName,
                       issuerKey: P256.Signing.PrivateKey) throws -> TestIdentity {
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: start, notValidAfter: end, issuer: issuerName, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(issuerKey)
        )
        let certificatePEM = try certificate.serializeAsPEM().pemString + "\n"
        let keyPEM = key.pemRepresentation + "\n"
        let certificateFile = directory.appendingPathComponent("\(file).pem")
        let keyFile = directory.appendingPathComponent("\(file)-key.pem")
        try Data(certificatePEM.utf8).write(to: certificateFile)
        try Data(keyPEM.utf8).write(to: keyFile)
        let pin = Data(SHA256.hash(data: key.publicKey.derRepresentation)).base64EncodedString()
        return TestIdentity(certificatePEM: certificatePEM, keyPEM: keyPEM, certificateFile: certificateFile,
                            keyFile: keyFile, publicKeyPin: pin, name: subject, key: key)
    }
}
