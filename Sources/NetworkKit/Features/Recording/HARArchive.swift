import Foundation

/// An HTTP Archive (HAR 1.2): what a ``HARRecorder`` writes and `StubTransport(har:)` replays.
/// Every field the format requires is written; reading takes files from elsewhere (browsers'
/// devtools, mitmproxy) too, so only what a replay needs is required there: each entry's
/// request method and URL and its response status.
package struct HARArchive: Codable, Sendable {
    package var log: Log

    package init(entries: [Entry]) {
        log = Log(version: "1.2", creator: Creator(name: "NetworkKit", version: HARArchive.kitVersion), entries: entries)
    }

    /// The version the kit writes in `creator`.
    package static let kitVersion = "1"

    package struct Log: Codable, Sendable {
        package var version: String?
        package var creator: Creator?
        package var entries: [Entry]
    }

    package struct Creator: Codable, Sendable {
        package var name: String
        package var version: String
    }

    /// One exchange.
    package struct Entry: Codable, Sendable {
        package var startedDateTime: String?
        /// Milliseconds from the start to the end of the exchange.
        package var time: Double?
        package var request: Request
        package var response: Response
        package var cache: Cache?
        package var timings: Timings?
        /// Why the exchange failed without a response (a custom field, as browsers write it).
        package var error: String?

        enum CodingKeys: String, CodingKey {
            case startedDateTime, time, request, response, cache, timings
            case error = "_error"
        }
    }

    package struct NameValue: Codable, Sendable, Equatable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    package struct Request: Codable, Sendable {
        package var method: String
        package var url: String
        package var httpVersion: String?
        package var cookies: [NameValue]?
        package var headers: [NameValue]?
        package var queryString: [NameValue]?
        package var postData: PostData?
        package var headersSize: Int?
        package var bodySize: Int?
    }

    package struct PostData: Codable, Sendable {
        package var mimeType: String
        package var text: String?
        package var params: [NameValue]?
        /// `base64` when `text` holds a body that is not UTF-8 text (a custom field).
        package var encoding: String?

        enum CodingKeys: String, CodingKey {
            case mimeType, text, params
            case encoding = "_encoding"
        }
    }

    package struct Response: Codable, Sendable {
        package var status: Int
        package var statusText: String?
        package var httpVersion: String?
        package var cookies: [NameValue]?
        package var headers: [NameValue]?
        package var content: Content?
        package var redirectURL: String?
        package var headersSize: Int?
        package var bodySize: Int?
    }

    package struct Content: Codable, Sendable {
        /// The body's length once decoded.
        package var size: Int
        /// Bytes saved by the content coding.
        package var compression: Int?
        package var mimeType: String?
        /// The decoded body: as is for text, in base64 when `encoding` says so.
        package var text: String?
        package var encoding: String?
        package var comment: String?
    }

    package struct Cache: Codable, Sendable {
        package init() {}
    }

    /// Milliseconds each phase took; -1 for a phase the recorder does not see.
    package struct Timings: Codable, Sendable {
        package var blocked: Double? = -1
        package var dns: Double? = -1
        package var connect: Double? = -1
        package var send: Double
        package var wait: Double
        package var receive: Double
        package var ssl: Double? = -1
    }
}

/// A HAR file that could not be read or written.
public struct HARFileError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public let url: URL
    /// What went wrong, in words.
    public let reason: String

    /// An error about `url`.
    package init(url: URL, reason: String) {
        self.url = url
        self.reason = reason
    }

    /// The file and what went wrong.
    public var description: String { "HAR file \(url.path): \(reason)" }
}

extension HARArchive {
    /// The archive in the file at `url`.
    package static func read(from url: URL) throws(HARFileError) -> HARArchive {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw HARFileError(url: url, reason: "cannot be read (\(error.localizedDescription))")
        }
        guard FoundationJSONInput.isSafe(data) else {
            throw HARFileError(url: url, reason: "is not JSON (it ends inside an array or object)")
        }
        do {
            return try JSONDecoder().decode(HARArchive.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw HARFileError(url: url, reason: "is not HAR: \(Self.path(context.codingPath + [key])) is missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw HARFileError(url: url, reason: "is not HAR: \(Self.path(context.codingPath)) has the wrong type")
        } catch {
            throw HARFileError(url: url, reason: "is not JSON (\(error.localizedDescription))")
        }
    }

    /// The archive as JSON, its entries in the order they started.
    package func encoded() throws(HARFileError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(self)
        } catch {
            throw HARFileError(url: URL(fileURLWithPath: "-"), reason: "cannot be encoded (\(error))")
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        String(keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop(while: { (character: Character) in character == "." }))
    }
}
