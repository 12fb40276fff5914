import Foundation
import FuzzSupport
import NetworkKit

/// What a server controls in a download: the file name from `Content-Disposition` or the URL
/// (always one safe path component) and the `Content-Range` of a resumed answer.
@main enum FuzzDownloads { static func main() { fuzzMain(fuzzDownloads) } }

func fuzzDownloads(_ data: Data) {
    var input = FuzzInput(data)
    let path = input.string(maxLength: 80)
    let range = input.string(maxLength: 60)
    let disposition = String(decoding: input.rest(), as: UTF8.self)
    let url = URL(string: "http://example.com/" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""))
    for name in [FuzzHooks.downloadFileName(contentDisposition: disposition, url: url),
                 FuzzHooks.downloadFileName(contentDisposition: nil, url: url)] {
        // Per scalar: a `Character` can hide a separator or a dot (U+0601 followed by "\\").
        let scalars = name.unicodeScalars
        let safe = !name.isEmpty && scalars.first != "." && !scalars.contains("/") && !scalars.contains("\\")
            && name.utf8.count <= 255 && !scalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        invariant(safe, "unsafe download file name \(name.debugDescription)")
    }
    if let parsed = FuzzHooks.contentRange(range) {
        invariant(parsed.start >= 0 && parsed.start <= parsed.end, "Content-Range \(range.debugDescription) read as \(parsed)")
    }
}
