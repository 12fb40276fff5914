import Foundation

/// The on-disk form of a ``CacheEntry``: a magic, the length of a JSON header, the header
/// (key, status, headers, URL, date, body length and CRC-32), then the body. Reading checks
/// every part, so a truncated, corrupt or foreign file is refused, never half-trusted.
enum CacheEntryFile {
    static let magic = Data("NKCACHE1".utf8)
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

    private struct Header: Codable {
        var key: String
        var url: URL?
        var statusCode: Int
        var headers: [String: String]
        var storedAt: Date
        var bodyLength: Int
        var bodyCRC: UInt32
    }

    static func encode(_ entry: CacheEntry) throws -> Data {
        let header = Header(key: entry.key, url: entry.url, statusCode: entry.statusCode, headers: entry.headers,
                            storedAt: entry.storedAt, bodyLength: entry.body.count, bodyCRC: CRC32.checksum(entry.body))
        let json = try JSONEncoder().encode(header)
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
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: data[headerStart..<headerStart + headerLength])
        } catch {
            throw .corrupt("header: \(error)")
        }
        let body = data[(headerStart + headerLength)...]
        guard body.count >= header.bodyLength else { throw .truncated }
        guard body.count == header.bodyLength else { throw .corrupt("\(body.count - header.bodyLength) bytes past the body") }
        let bodyData = Data(body)
        guard CRC32.checksum(bodyData) == header.bodyCRC else { throw .corrupt("body checksum") }
        return CacheEntry(key: header.key, url: header.url, statusCode: header.statusCode, headers: header.headers,
                          body: bodyData, storedAt: header.storedAt)
    }
}
