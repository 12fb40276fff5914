import Foundation
import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Transfers

func downloadReport(service: Service, downloads: URL) async throws -> URL {
    let request = Request(path: "/files/report.pdf", downloadTo: .directory(downloads))
    request.addProgressHandler { _, progress in
        print(progress.fractionCompleted ?? 0, progress.bytesPerSecond ?? 0, progress.estimatedTimeRemaining ?? .zero)
    }
    let file = try await service.send(request)
    print(file.url.path, file.byteCount, file.resumedFrom)
    return file.url
}

func downloadChecked(service: Service, to destination: URL, sha256 hex: String,
                     hasher: @escaping @Sendable () -> any DigestHasher) async throws -> DownloadedFile {
    let request = Request(path: "/releases/app.zip", downloadTo: .file(destination))
    request.download?.replacesExisting = true
    request.download?.createsDirectories = true
    request.download?.digest = FileDigest(hex: hex, makeHasher: hasher)
    return try await service.send(request)
}

func downloadJSON(service: Service, to destination: URL) async throws -> JSON {
    let request = Request(path: "/exports/feed.json", downloadTo: .file(destination),
                          parser: FileContentsParser(JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"))))
    return try await service.send(request)
}

func uploadPhoto(service: Service, photo: URL) async throws -> JSON {
    var form = MultipartForm()
    form.append("Ada", name: "author")
    try form.append(file: photo, name: "photo")
    let request = Request(path: "/photos", method: .post, parser: JSONParser())
    request.body = .multipart(form)
    request.addProgressHandler { _, progress in
        if progress.direction == .upload { print(progress.completedBytes, progress.totalBytes ?? 0) }
    }
    return try await service.send(request)
}

func uploadVideo(service: Service, video: URL) async throws -> Data {
    let request = Request(path: "/videos", method: .put)
    request.body = .file(video, contentType: "video/mp4")
    return try await service.send(request)
}

/// An export that makes its CSV anew each time it is asked.
struct CSVExport: Sendable {
    let rows: [String]

    func chunks() -> AsyncStream<Data> {
        AsyncStream { continuation in
            for row in rows { continuation.yield(Data((row + "\n").utf8)) }
            continuation.finish()
        }
    }
}

func uploadStreams(service: Service, lines: AsyncStream<Data>, export: CSVExport, size: Int64) async throws -> JSON {
    let request = Request(path: "/imports", method: .post, parser: JSONParser())
    // Made once (an AsyncStream<Data> of lines): sent once. A retry or a 307/308 cannot ask for it again.
    request.body = .stream(RequestBodyStream(lines), contentType: "text/csv")
    // Made again for each attempt: retried and redirected like any body.
    request.body = .stream(RequestBodyStream(length: size) { export.chunks() }, contentType: "text/csv")
    return try await service.send(request)
}

func customRequest(service: Service, url: URL) async throws -> JSON {
    var urlRequest = URLRequest(url: url)
    urlRequest.httpMethod = "POST"
    urlRequest.httpBody = Data("{\"q\": 1}".utf8)
    urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
    return try await service.send(Request(urlRequest: urlRequest, parser: JSONParser()))
}

func customOutgoingRequest(service: Service, url: URL) async throws -> JSON {
    let outgoing = try OutgoingRequest(method: .post, url: url, headerFields: [.contentType: "application/json"],
                                       body: .data(Data("{\"q\": 1}".utf8)))
    return try await service.send(Request(outgoing, parser: JSONParser()))
}

func limitedService() -> Service {
    var configuration = ServiceConfiguration()
    configuration.maxResponseBytes = 8 * 1024 * 1024
    configuration.timeLimit = .seconds(30)
    configuration.maxDownloadBytes = 4 * 1024 * 1024 * 1024
    configuration.downloadTimeLimit = .seconds(3600)
    return Service(configuration: configuration)
}

func handleLimits(service: Service) async {
    let request = Request(path: "/feed", parser: JSONParser())
    request.maxResponseBytes = 512 * 1024
    request.timeLimit = .seconds(5)
    do {
        print(try await service.send(request))
    } catch .responseTooLarge(let limit) {
        print("more than \(limit) bytes")
    } catch .timeLimitExceeded(let limit) {
        print("took longer than \(limit)")
    } catch {
        print(error)
    }
}
