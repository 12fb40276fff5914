import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download: each accepted answer's body is written to a partial file as it arrives, an attempt
/// asks to resume what an earlier one left on disk, and the file moves into place once the answer
/// is validated, before the parser chain reads it. The service's download limits apply.
struct DownloadStrategy: RequestStrategy {
    let file: PartialDownload

    /// The strategy of a download to `download`'s destination of the request sent with `options`,
    /// whose identity (what a partial file resumes) is read on `environment`.
    init(_ download: Download, options: RequestOptions, environment: ServiceEnvironment) {
        file = PartialDownload(options: download,
                               sourceURL: OutgoingRequestBuilder.downloadIdentity(options, environment: environment))
    }

    func body(accepting acceptable: Range<Int>) -> Transfer.Body { .file(file) }
    var partialFile: URL? { file.partialURL }

    func serviceTimeLimit(_ settings: PipelineSettings) -> Duration? { settings.downloadTimeLimit }
    func serviceSizeLimit(_ settings: PipelineSettings) -> Int64? { settings.maxDownloadBytes }

    func prepare(_ attempt: inout OutgoingRequest) throws(NetworkError) {
        for field in try file.prepare() { attempt.head.headerFields[field.name] = field.value }
    }

    func placeBody(of head: ResponseHead, for request: AnyRequest) throws(NetworkError) -> DownloadedFile? {
        try file.finish(head, commit: request.commit)
    }

    func answerFailed() {
        file.suspend()
    }

    func discardPartialFile() {
        file.discard()
    }
}
