import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Sets the session's trust (placeholder: filled in by the TLS work).
    static func applyTrust(_ trust: TrustSettings, to configuration: URLSessionConfiguration) throws(NetworkError) {}
}
