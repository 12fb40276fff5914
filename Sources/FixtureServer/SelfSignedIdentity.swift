import NIOSSL

/// The raw server's TLS identity: a self-signed certificate for 127.0.0.1 and localhost (valid
/// until 2126) and its P-256 key, made once with `openssl req -x509 -newkey ec` for these tests
/// and trusted by no one, so a client that checks certificates refuses it.
enum SelfSignedIdentity {
    /// A server-side TLS context presenting the certificate.
    static func context() throws -> NIOSSLContext {
        let certificate = try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
        return try NIOSSLContext(configuration: .makeServerConfiguration(certificateChain: [.certificate(certificate)],
                                                                         privateKey: .privateKey(key)))
    }

    static let certificatePEM = """
-----BEGIN CERTIFICATE-----
MIIByjCCAW+gAwIBAgIURGM4PfCdCOr1vEsygsQAkZFHdjMwCgYIKoZIzj0EAwIw
KzEpMCcGA1UEAwwgTmV0d29ya0tpdCBmaXh0dXJlIChzZWxmLXNpZ25lZCkwIBcN
MjYxMTIzMTc0OTM5WhgPMjEyNjEwMzAxNzQ5MzlaMCsxKTAnBgNVBAMMIE5ldHdv
cmtLaXQgZml4dHVyZSAoc2VsZi1zaWduZWQpMFkwEwYHKoZIzj0CAQYIKoZIzj0D
AQcDQgAEuAghtNkFBHMlBaqgVW6YXIHwecsaEjJvvhz4IYHPAnFzgJJTogNJilU2
emp3PAN03LM/ScucAgejlkELcr1cT6NvMG0wHQYDVR0OBBYEFN8YiUE3ROdyfEtm
DfNkupEAS42jMB8GA1UdIwQYMBaAFN8YiUE3ROdyfEtmDfNkupEAS42jMA8GA1Ud
EwEB/wQFMAMBAf8wGgYDVR0RBBMwEYcEfwAAAYIJbG9jYWxob3N0MAoGCCqGSM49
BAMCA0kAMEYCIQDVjGmXGYnMydKv7LCepoc7L+j2VJ2rtJdBCP7ZnrazsgIhAOW6
TrmcKPRYbizfdRvAMIj9Wb33Ik0jZjqmMB0fipJm
-----END CERTIFICATE-----
"""

    static let keyPEM = """
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgX/ShmoDlQXjqtbts
2akJt7XteF/YqFY0fryM9kxT06yhRANCAAS4CCG02QUEcyUFqqBVbphcgfB5yxoS
Mm++HPghgc8CcXOAklOiA0mKVTZ6anc8A3Tcsz9Jy5wCB6OWQQtyvVxP
-----END PRIVATE KEY-----
"""
}
