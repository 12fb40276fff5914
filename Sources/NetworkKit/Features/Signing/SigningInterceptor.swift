import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Signs every attempt as it will be sent. Created by `ServiceConfiguration.signer`, it goes at
/// the end of the service's interceptors, and a request's own interceptors run before it, so
/// the signature covers everything they change.
struct SigningInterceptor: BuiltInInterceptor {
    static let place = BuiltInPlace.last
    static let prepares = false
    static let serviceDefault = ServiceDefaults.signer

    /// The signer.
    var signer: any RequestSigning

    /// Signs every request with `signer`.
    init(_ signer: any RequestSigning) {
        self.signer = signer
    }

    /// The signed request (see ``RequestSigning/sign(_:environment:)``).
    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        try signer.sign(request, environment: context.environment)
    }
}
