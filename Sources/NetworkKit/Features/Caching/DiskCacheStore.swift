import Foundation
import Logging

/// Entry files in one directory, least recently used evicted first once their size passes
/// `capacity`. Writes go to a temporary file that is then renamed over the entry, so a reader
/// sees the old file or the new one, never half of one, and a crash leaves no entry that
/// checks out. A file that does not check out is removed with a warning.
///
/// `@unchecked Sendable`: `index` and `indexLoaded` are read and written only inside `lock`;
/// file reads and writes happen outside it (renames are atomic).
final class DiskCacheStore: @unchecked Sendable {
    let directory: URL
    let capacity: Int
    private let logger: Logger
    private let lock = NSLock()
    private var index: [String: (size: Int, lastUse: Date)] = [:]
    private var indexLoaded = false

    /// The directory's path with a trailing slash, to name files without building URLs.
    private let directoryPath: String

    init(directory: URL, capacity: Int, logger: Logger) {
        self.directory = directory
        directoryPath = directory.path.hasSuffix("/") ? directory.path : directory.path + "/"
        self.capacity = capacity
        self.logger = logger
    }

    /// The total size of the entry files.
    var totalSize: Int {
        withIndex { Self.size(of: $0) }
    }

    /// The entry stored under `key`, or nil (missing, corrupt, or another key's file).
    func entry(for key: CacheKey) -> CacheEntry? {
        let name = key.fileName
        let path = directoryPath + name
        guard let data = Self.contents(ofFile: path) else {
            withIndex { $0[name] = nil }
            return nil
        }
        do {
            let entry = try CacheEntryFile.decode(data)
            guard entry.key == key.text else { return nil }
            withIndex { $0[name] = (data.count, Date()) }
            return entry
        } catch {
            logger.warning("dropping cache file \(name): \(error)")
            try? FileManager.default.removeItem(atPath: path)
            withIndex { $0[name] = nil }
            return nil
        }
    }

    func store(_ entry: CacheEntry, key: CacheKey) {
        let name = key.fileName
        do {
            let data = try CacheEntryFile.encode(entry)
            guard data.count <= capacity else { return }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let temporary = directory.appendingPathComponent(".\(name).\(UUID().uuidString).tmp")
            try data.write(to: temporary)
            if rename(temporary.path, directory.appendingPathComponent(name).path) != 0 {
                try? FileManager.default.removeItem(at: temporary)
                throw CocoaError(.fileWriteUnknown)
            }
            let evicted = withIndex { index -> [String] in
                index[name] = (data.count, Date())
                let evicted = LeastRecentlyUsed.evictions(from: index, total: Self.size(of: index), capacity: capacity)
                for file in evicted { index[file] = nil }
                return evicted
            }
            for file in evicted { try? FileManager.default.removeItem(at: directory.appendingPathComponent(file)) }
        } catch {
            logger.warning("could not store cache file \(name): \(error)")
        }
    }

    func remove(_ key: CacheKey) {
        let name = key.fileName
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        withIndex { $0[name] = nil }
    }

    func removeAll() {
        let names = withIndex { index -> [String] in
            defer { index.removeAll() }
            return Array(index.keys)
        }
        for name in names { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
    }

    /// The whole file at `path`, read with one `read(2)` loop into a buffer of its size; nil
    /// when it cannot be opened or read.
    private static func contents(ofFile path: String) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size >= 0 else { return nil }
        var data = Data(count: Int(status.st_size))
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = read(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        return complete ? data : nil
    }

    private static func size(of index: [String: (size: Int, lastUse: Date)]) -> Int {
        index.values.reduce(0) { $0 + $1.size }
    }

    /// Runs `body` on the index, loaded from the directory the first time (sizes and
    /// modification dates of the entry files; leftover temporary files are removed).
    private func withIndex<Result>(_ body: (inout [String: (size: Int, lastUse: Date)]) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        if !indexLoaded {
            indexLoaded = true
            index = Self.scan(directory)
        }
        return body(&index)
    }

    private static func scan(_ directory: URL) -> [String: (size: Int, lastUse: Date)] {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard let files = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) else {
            return [:]
        }
        var index: [String: (size: Int, lastUse: Date)] = [:]
        for file in files {
            let name = file.lastPathComponent
            if name.hasPrefix("."), name.hasSuffix(".tmp") {
                // Another service may be writing it right now: only an old one is a leftover.
                let modified = (try? file.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate
                if let modified, modified.timeIntervalSinceNow < -600 { try? FileManager.default.removeItem(at: file) }
                continue
            }
            guard name.hasSuffix(".nkcache"), let values = try? file.resourceValues(forKeys: Set(keys)) else { continue }
            index[name] = (values.fileSize ?? 0, values.contentModificationDate ?? .distantPast)
        }
        return index
    }
}
