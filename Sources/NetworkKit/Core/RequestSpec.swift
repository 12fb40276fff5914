import Foundation

/// What a request asks for; read by the service when the request is sent.
struct RequestSpec: Sendable {
    var target: String
    var method: HTTPMethod
    var parameters: [String: JSON]
    var parameterEncoding: ParameterEncoding = .automatic
    var headers: [String: String]
    var body: Data?
    var bodyContentType: String = "application/octet-stream"
    var timeout: TimeInterval?
    var useCDN = false
    var bodyEncoding: ContentCoding?
    var acceptableStatusCodes: Range<Int> = 200..<300
}
