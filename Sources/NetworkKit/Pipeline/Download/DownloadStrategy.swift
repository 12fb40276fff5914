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
    var pipelineFinishesStops: Bool { true }

    func serviceTimeLimit(_ settings: PipelineSettings) -> Duration? { settings.downloadTimeLimit }
    func serviceSizeLimit(_ settings: PipelineSettings) -> Int64? { settings.maxDownloadBytes }

    func prepare(_ attempt: inout OutgoingRequest) throws(NetworkError) {
        for field in try file.prepare() { attempt.head.headerFields[field.name] = field.value }
    }

    func respond(to outcome: TransferOutcome, in pipeline: RequestPipeline, cache: (any RequestCaching)?) async -> AnyResult {
        let result = await accepted(outcome, in: pipeline)
        if case .failure = result { file.suspend() }
        return result
    }

    /// The answer validated (its body, when it is not the file, is an error body in memory), the
    /// file moved into place, then parsed.
    private func accepted(_ outcome: TransferOutcome, in pipeline: RequestPipeline) async -> AnyResult {
        let head: ResponseHead
        do {
            head = try pipeline.answerHead(of: outcome)
        } catch {
            return .failure(error)
        }
        var response: Response
        switch pipeline.accept(Response(head, data: outcome.body), checksBody: false) {
        case .success(let accepted): response = accepted
        case .failure(let error): return .failure(error)
        }
        do {
            let downloaded = try file.finish(head, commit: pipeline.request.commit)
            pipeline.request.didReceiveWholeBody(bytes: downloaded.byteCount)
            response.downloadedFile = downloaded
        } catch {
            return .failure(error)
        }
        return await pipeline.parse(response)
    }

    func discardPartialFile() {
        file.discard()
    }
}
