import Foundation

/// Collects the exchanges a ``RecordingTransport`` saw, as HAR 1.2 entries, and writes them to a
/// file that browsers' devtools open and `StubTransport(har:)` replays.
///
///     let recorder = HARRecorder()
///     let service = Service(configuration: configuration,
///                           transport: RecordingTransport(wrapping: URLSessionTransport(), recorder: recorder))
///     // … requests …
///     try recorder.write(to: URL(fileURLWithPath: "session.har"))
///
/// Secrets are hidden as `redaction` says: credentials and cookies in headers, the values of
/// secret query and form parameters (``Redaction``). Bodies are kept up to `bodyLimit` bytes
/// each; a longer one is recorded by its size alone, so a download does not fill memory.
///
/// An exchange's entry is made on the recorder's own queue (its body decoded, encoded as text or
/// base64, its secrets hidden), not on the path of the request it records; ``count``, ``har()``,
/// ``write(to:)`` and ``append(to:)`` wait for the entries of the exchanges that ended before them.
public final class HARRecorder: Sendable {
    /// Which secrets the recorded headers, URLs and form bodies hide.
    public let redaction: Redaction
    /// The most bytes of one body kept.
    public let bodyLimit: Int64
    private let entries = Protected<[HARArchive.Entry]>([])
    /// Where entries are made, one at a time, in the order their exchanges ended.
    private let queue = DispatchQueue(label: "NetworkKit.HARRecorder")

    /// A recorder with no entries yet.
    public init(redaction: Redaction = .standard, bodyLimit: Int64 = 4 << 20) {
        self.redaction = redaction
        self.bodyLimit = bodyLimit
    }

    /// `bodyLimit` as a count of bytes in memory.
    var bodyByteLimit: Int { Int(clamping: max(0, bodyLimit)) }

    /// How many exchanges were recorded.
    public var count: Int {
        queue.sync {}
        return entries.withLock { $0.count }
    }

    /// The recorded exchanges as a HAR 1.2 document (JSON), in the order they started.
    public func har() throws(HARFileError) -> Data {
        try archive().encoded()
    }

    /// Writes the recorded exchanges to `url` as a HAR file, replacing it.
    public func write(to url: URL) throws(HARFileError) {
        try Self.write(archive(), to: url)
    }

    /// Adds the recorded exchanges to the HAR file at `url` (made when missing), after those it
    /// holds. A file that is not HAR is left as it was.
    public func append(to url: URL) throws(HARFileError) {
        var archive = FileManager.default.fileExists(atPath: url.path) ? try HARArchive.read(from: url) : HARArchive(entries: [])
        archive.log.entries += self.archive().log.entries
        try Self.write(archive, to: url)
    }

    /// Makes an entry with `build` on the recorder's queue and adds it.
    package func add(_ build: @escaping @Sendable () -> HARArchive.Entry) {
        queue.async { [entries] in
            let entry = build()
            entries.withLock { $0.append(entry) }
        }
    }

    private func archive() -> HARArchive {
        queue.sync {}
        // ISO 8601 times with the same precision sort as text.
        return HARArchive(entries: entries.snapshot.sorted { ($0.startedDateTime ?? "") < ($1.startedDateTime ?? "") })
    }

    private static func write(_ archive: HARArchive, to url: URL) throws(HARFileError) {
        let data = try archive.encoded()
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw HARFileError(url: url, reason: "cannot be written (\(error.localizedDescription))")
        }
    }
}
