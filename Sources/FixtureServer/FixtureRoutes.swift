import Foundation
import Hummingbird
import NIOCore

/// The routes every test and demo talks to. Each group lives in its own file.
enum FixtureRoutes {
    static func add(to router: Router<BasicRequestContext>, blobs: BlobStore, hits: HitCounter, verifier: SignatureVerifier?) {
        addJSON(to: router)
        addFaults(to: router)
        addHostile(to: router)
        addFiles(to: router, hits: hits)
        addMultipart(to: router)
        addTransfers(to: router, blobs: blobs)
        addCounting(to: router, hits: hits)
        addCaching(to: router, hits: hits)
        addAuth(to: router, verifier: verifier)
        addPaging(to: router, hits: hits)
        addProfiles(to: router)
        addStreams(to: router)
        let gates = NamedStore<Bool>()
        addGates(to: router, gates: gates)
        addImages(to: router, blobs: blobs, gates: gates)
        addCookies(to: router)
        addRealAPIs(to: router)
    }

    static func respond(
        _ status: HTTPResponse.Status = .ok, contentType: String?, body: Data, extraHeaders: HTTPFields = [:]
    ) -> Response {
        var headers = extraHeaders
        if let contentType { headers[.contentType] = contentType }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        respond(status, contentType: "application/json; charset=utf-8", body: Data(text.utf8))
    }

    static func query(_ request: Request, _ name: String) -> String? {
        request.uri.queryParameters[name[...]].map { String($0).removingPercentEncoding ?? String($0) }
    }
}
