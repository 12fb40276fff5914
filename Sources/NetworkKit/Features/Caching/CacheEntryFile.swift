import Foundation

/// The on-disk form of a ``CacheEntry``: a magic, the length of a JSON header, the header
/// (key, status, header fields as `[name, value]` pairs in order, URL, date, body length and
/// CRC-32), then the body. Reading checks
/// every part, so a truncated, corrupt or foreign file is refused, never half-trusted.
enum CacheEntryFile {
    static let magic = Data("NKCACHE2".utf8)
    /// The most header bytes a valid file can have; anything longer is not ours.
    static let maxHeaderBytes = 1 << 20

    /// Why a file was refused.
    enum Failure: Error, Equatable, CustomStringConvertible {
        case notACacheFile
        case truncated
        case corrupt(String)

        var description: String {
            switch self {
            case .notACacheFile: "not a NetworkKit cache file"
            case .truncated: "truncated"
            case .corrupt(let reason): "corrupt (\(reason))"
            }
        }
    }

    /// The header is JSON read and written by the kit's own reader (the body is never copied
    /// through it): Foundation's `JSONDecoder` would be a large share of a disk hit's time
    /// (BENCHMARKS.md).
    static func encode(_ entry: CacheEntry) throws -> Data {
        var header: [String: JSON] = [
            "key": .string(entry.key),
            "status": .int(Int64(entry.status.code)),
            "fields": .array(entry.headerFields.map { .array([.string($0.name.rawName), .string($0.value)]) }),
            "stored": .double(entry.storedAt.timeIntervalSince1970),
            "length": .int(Int64(entry.body.count)),
            "crc": .int(Int64(CRC32.checksum(entry.body))),
        ]
        if let url = entry.url { header["url"] = .string(url.absoluteString) }
        let json = try JSON.object(header).serialized()
        var data = magic
        data.reserveCapacity(magic.count + 4 + json.count + entry.body.count)
        withUnsafeBytes(of: UInt32(json.count).bigEndian) { data.append(contentsOf: $0) }
        data.append(json)
        data.append(entry.body)
        return data
    }

    static func decode(_ data: Data) throws(Failure) -> CacheEntry {
        guard data.count >= magic.count + 4 else {
            throw data.starts(with: magic.prefix(data.count)) && !data.isEmpty ? .truncated : .notACacheFile
        }
        guard data.starts(with: magic) else { throw .notACacheFile }
        let lengthStart = data.startIndex + magic.count
        let headerLength = data[lengthStart..<lengthStart + 4].reduce(0) { $0 << 8 | Int($1) }
        guard headerLength <= maxHeaderBytes else { throw .corrupt("header length \(headerLength)") }
        let headerStart = lengthStart + 4
        guard data.endIndex - headerStart >= headerLength else { throw .truncated }
        let header: JSON
        do {
            header = try JSON(data: Data(data[headerStart..<headerStart + headerLength]))
        } catch {
            throw .corrupt("header: \(error)")
        }
        guard let key = header["key"]?.stringValue,
              let status = header["status"]?.intValue.flatMap({ Int(exactly: $0) }).flatMap(HTTPResponse.Status.init(received:)),
              let fields = header["fields"]?.arrayValue,
              let stored = header["stored"]?.doubleValue,
              let length = header["length"]?.intValue.flatMap({ Int(exactly: $0) }),
              let crc = header["crc"]?.intValue.flatMap({ UInt32(exactly: $0) }) else {
            throw .corrupt("header fields")
        }
        var headerFields = HTTPFields()
        for field in fields {
            guard let pair = field.arrayValue, pair.count == 2, let rawName = pair[0].stringValue,
                  let name = HTTPField.Name(rawName), let value = pair[1].stringValue else {
                throw .corrupt("header field \(field)")
            }
            headerFields.append(HTTPField(name: name, value: value))
        }
        let body = data[(headerStart + headerLength)...]
        guard body.count >= length else { throw .truncated }
        guard body.count == length else { throw .corrupt("\(body.count - length) bytes past the body") }
        let bodyData = Data(body)
        guard CRC32.checksum(bodyData) == crc else { throw .corrupt("body checksum") }
        return CacheEntry(key: key, url: header["url"]?.stringValue.flatMap { URL(string: $0) }, status: status,
                          headerFields: headerFields, body: bodyData, storedAt: Date(timeIntervalSince1970: stored))
    }
}
