import ArgumentParser
import Crypto
import Foundation
import NetworkKit

/// `nk download URL -o PATH`: downloads to disk, resuming what an earlier run left.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download a URL to a file, resuming a broken download when run again.",
        discussion: """
        PATH is a file, or an existing directory to save under the server's (sanitized) file name. \
        If the transfer breaks, nk exits non-zero and keeps the partial data; the same command run \
        again resumes it to a byte-identical file.
        """
    )

    @Argument(help: "The URL to download.")
    var url: String

    @Option(name: [.customShort("o"), .customLong("output")], help: "Where to save: a file, or a directory.")
    var output: String

    @Option(help: "The SHA-256 the file must have, in hex; a mismatch removes the file and exits non-zero.")
    var sha256: String?

    @Option(help: "The transport: nio (SwiftNIO's AsyncHTTPClient) or urlsession. Default: nio on Linux, urlsession elsewhere.")
    var transport: TransportChoice = .platformDefault

    @OptionGroup(title: "Connection (curl's flags)")
    var connection: ConnectionOptions

    @OptionGroup(title: "Recording")
    var har: HAROption

    @Flag(help: "Replace an existing file at PATH.")
    var force = false

    @Flag(name: [.customShort("q"), .customLong("quiet")], help: "Print nothing but errors.")
    var quiet = false

    @Option(name: .customLong("max-time"), help: "Give up after SECONDS in all.")
    var maxTime: Double?

    @Option(name: .customLong("max-filesize"), help: "Refuse a file larger than BYTES.")
    var maxFilesize: Int64?

    func run() async throws {
        let target = URL(fileURLWithPath: output)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: target.path, isDirectory: &isDirectory)
        let destination: Download.Destination = exists && isDirectory.boolValue ? .directory(target) : .file(target)
        let recorder = har.recorder()
        let service = try connection.service(transport, ServiceConfiguration(),
                                             url: url, recorder: recorder)
        defer {
            connection.saveCookies(of: service)
            har.save(recorder)
        }
        let request = Request(download: RequestTarget(absolute: url), to: destination)
        request.download?.replacesExisting = force
        request.download?.createsDirectories = true
        if let sha256 { request.download?.digest = FileDigest(hex: sha256, makeHasher: { SHA256Hasher() }) }
        if let maxTime { request.timeLimit = .milliseconds(Int64(maxTime * 1000)) }
        if let maxFilesize { request.maxResponseBytes = maxFilesize }
        let bar = ProgressLine(quiet: quiet)
        request.addProgressHandler { _, progress in bar.show(progress) }
        do {
            let file = try await service.send(request)
            bar.finish()
            if !quiet {
                let resumed = file.resumedFrom > 0 ? ", resumed from \(ProgressLine.bytes(file.resumedFrom))" : ""
                print("saved \(file.url.path) (\(ProgressLine.bytes(file.byteCount))\(resumed))")
            }
        } catch {
            bar.finish()
            FileHandle.standardError.write(Data("nk: \(error)\n".utf8))
            switch error {
            case .transport, .timeLimitExceeded, .httpStatus(500..., _, _):
                FileHandle.standardError.write(Data("nk: the partial file is kept: run the same command again to resume\n".utf8))
            default:
                break
            }
            throw ExitCode(1)
        }
    }
}

/// swift-crypto's SHA-256 for `FileDigest`.
final class SHA256Hasher: DigestHasher {
    private var hasher = SHA256()
    func update(_ bytes: UnsafeRawBufferPointer) { hasher.update(bufferPointer: bytes) }
    func finalize() -> [UInt8] { Array(hasher.finalize()) }
}

/// Transfer progress on stderr: a redrawn bar with bytes, rate and ETA on a terminal, a line
/// per tenth otherwise.
final class ProgressLine: Sendable {
    private let quiet: Bool
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private let lastTenth = Protected(-1)

    init(quiet: Bool) {
        self.quiet = quiet
    }

    func show(_ progress: TransferProgress) {
        guard !quiet else { return }
        let verb = progress.direction == .download ? "downloaded" : "uploaded"
        let total = progress.totalBytes.map { " of " + Self.bytes($0) } ?? ""
        let rate = progress.bytesPerSecond.map { ", " + Self.bytes(Int64($0)) + "/s" } ?? ""
        let eta = progress.estimatedTimeRemaining.map { ", \(Int($0.components.seconds)) s left" } ?? ""
        if isTerminal {
            let fraction = progress.fractionCompleted ?? 0
            let filled = Int(fraction * 30)
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: 30 - filled)
            let line = "\r[\(bar)] \(Int(fraction * 100))% \(Self.bytes(progress.completedBytes))\(total)\(rate)\(eta)\u{1B}[K"
            FileHandle.standardError.write(Data(line.utf8))
        } else {
            let tenth = Int((progress.fractionCompleted ?? 0) * 10)
            let isNew = lastTenth.withLock { last -> Bool in
                guard tenth > last else { return false }
                last = tenth
                return true
            }
            if isNew { FileHandle.standardError.write(Data("\(verb) \(Self.bytes(progress.completedBytes))\(total)\(rate)\n".utf8)) }
        }
    }

    func finish() {
        if isTerminal, !quiet { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .binary)
    }
}
