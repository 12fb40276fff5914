import Foundation
import NetworkKit
import NetworkKitImage

// MARK: - Images and Thumbnails, "Previews as the image arrives"

func imageStreamPreviews(api: Service) async throws {
    let request = StreamRequest(path: "/photo.jpg", parser: IncrementalImageParser(maxPixelSize: 1024))
    for try await item in api.stream(request) {
        if item.isFinal {
            print("final", item.image.width, item.image.height)
        } else {
            print("preview", item.stage, item.bytesReceived)
        }
    }
}

func imageStreamHandlers(api: Service) {
    let request = StreamRequest(path: "/photo.jpg", parser: IncrementalImageParser())
    request.addItemHandler { _, item in print(item.stage, item.image.width) }
    api.start(request)
}

func imageStreamPolicy() -> IncrementalImageParser {
    let policy = ImagePreviewPolicy(sources: [.progressiveScans, .interlacedPasses, .partialRows],
                                    cadence: .atMostOncePer(.milliseconds(250)), maxPixelSize: 128)
    let parser = IncrementalImageParser(maxPixelSize: 2048, previews: policy)
    return parser
}

/// Stands in for an app's display code.
private func show(_ image: DecodedImage) {}

func imageStreamErrors(api: Service) async {
    do {
        for try await item in api.stream(StreamRequest(path: "/photo.jpg", parser: IncrementalImageParser())) {
            show(item.image)                // the last preview shown stays the best there is
        }
    } catch {
        print(error)                        // a NetworkError, as for any request
    }
}
