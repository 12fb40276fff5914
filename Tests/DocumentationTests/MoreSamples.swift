import Foundation
import NetworkKit
import NetworkKitImage

// MARK: - Compression

func compressionUpload(api: Service) async throws {
    let upload = Request(path: "/logs", method: .post, parser: JSONParser())
    upload.body = .data(Data(repeating: 65, count: 100_000), contentType: "text/plain")
    upload.bodyEncoding = .zstd             // sent with Content-Encoding: zstd
    _ = try await api.send(upload)
}

func compressionOffered(api: Service) {
    api.configure { $0.acceptedCodings = [.zstd, .gzip] }   // Accept-Encoding: zstd, gzip
}

func compressionLimit(api: Service) {
    api.configure { $0.maxDecompressedBytes = 32 << 20 }   // 32 MB
}

// MARK: - Where parsing runs

struct StatusLineParser: ResponseParser {
    var isLightweight: Bool { true }
    func parse(_ response: Response) throws -> String {
        String(decoding: response.data.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}

// MARK: - Errors

func errorsSwitch(api: Service) async {
    do {
        let profile = try await api.send(Request(path: "/me", parser: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"))))
        print(profile)
    } catch .businessCode(let code, let message) {
        print("the server refused: \(code) \(message ?? "")")
    } catch let error where error.header(.retryAfter) != nil {
        print("busy: come back in \(error.header(.retryAfter) ?? "") s")
    } catch .httpStatus(let status, _, _) {
        print("HTTP \(status)")
    } catch .transport(let error) where error.code == .notConnectedToInternet {
        print("offline")
    } catch .parse(let error) where error.kind == .keyPath {
        print("the answer changed shape: \(error)")
    } catch .cancelled {
        return
    } catch {
        print(error)
    }
}

// MARK: - Images

func imagesRequest(api: Service) async throws {
    let image = try await api.send(Request(path: "/avatar.jpg", parser: ImageParser(maxPixelSize: 256)))
    print(image.width, image.height, image.sourceWidth, image.orientation, image.isDownsampled)
}

func imagesIncomplete(api: Service) async throws {
    let image = try await api.send(Request(path: "/photo.jpg", parser: ImageParser(maxPixelSize: 256)))
    if image.isIncomplete {
        print("showing a partial image:", image.warnings)
    }
    let strict = Request(path: "/photo.jpg", parser: ImageParser(isStrict: true))
    _ = strict
}

func imagesPixelLimit() {
    let icon = Request(path: "/icon.png", parser: ImageParser(maxPixelSize: 64, pixelLimit: 4_000_000))
    _ = icon
}

struct GIFCodec: ImageCodec {
    var format: ImageFormat { "gif" }
    func canDecode(_ data: Data) -> Bool { data.starts(with: Array("GIF8".utf8)) }
    func decode(_ data: Data, options: ImageDecodingOptions) throws -> DecodedImage {
        throw ParseError(parser: "image", reason: "GIF decoding is left to you", kind: .image)
    }
}

func imagesRegister() {
    ImageCodecRegistry.shared.register(GIFCodec(), forMIMETypes: ["image/gif"])
}

// MARK: - Where Code Runs, "Overview"

@MainActor
final class FeedScreen {
    var title = "Loading…"
    var progress = 0.0

    func load(from api: Service) {
        let request = Request(path: "/feed", parser: ModelParser([Entrance].self))
        request.addProgressHandler { _, progress in self.progress = progress.fractionCompleted ?? 0 }
        request.addCompletionHandler { _, result in
            switch result {
            case .success(let entrances): self.title = "\(entrances.count) entrances"
            case .failure(let error): self.title = error.description
            }
        }
        api.start(request)
    }
}
