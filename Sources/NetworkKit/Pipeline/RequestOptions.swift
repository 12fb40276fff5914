import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a request asks for; the pipeline reads a snapshot of it when the request starts.
struct RequestOptions: Sendable {
    var target: RequestTarget
    var method: HTTPRequest.Method
    var parameters: [String: JSON]
    var headerFields: HTTPFields
    var body: RequestBody = .automatic
    var timeout: Duration?
    var useCDN = false
    var bodyEncoding: ContentCoding?
    var acceptableStatusCodes: Range<Int> = 200..<300
    var interceptors: [any RequestInterceptor] = []
    var usesServiceInterceptors = true
    var skippedServiceDefaults: ServiceDefaults = []
    var priority: RequestPriority = .normal
    var isIdempotent: Bool?
    var redirectPolicy: RedirectPolicy?
    var usesCookies = true
    var maxResponseBytes: Int64?
    var timeLimit: Duration?
    /// A plain request, a download to a file, or a stream.
    var kind: RequestKind = .plain
    var cache: CachePolicy?
    /// A request built by the caller, sent as is (see `Request.init(_:parser:)`), or why the
    /// `URLRequest` it was made from cannot be sent (`Request.init(urlRequest:parser:)`).
    var customRequest: Result<OutgoingRequest, NetworkError>?
}
