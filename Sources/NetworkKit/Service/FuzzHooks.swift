import Foundation

/// The kit's internal parsers of server-controlled text, opened to the fuzz targets under `Fuzz/`
/// (package access: not part of the public API).
package enum FuzzHooks {
    /// The file name a download gets from `contentDisposition` and `url` (sanitized).
    package static func downloadFileName(contentDisposition: String?, url: URL?) -> String {
        DownloadFileName.suggested(contentDisposition: contentDisposition, url: url)
    }

    /// A `Content-Range` header as the resume bookkeeping reads it: start, end, total.
    package static func contentRange(_ header: String) -> (start: Int64, end: Int64, total: Int64?)? {
        ContentRange(header).map { ($0.start, $0.end, $0.total) }
    }

    /// The bytes a multipart form is sent as.
    package static func encoded(_ form: MultipartForm) throws -> Data {
        try form.encoded()
    }
}
