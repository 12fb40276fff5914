import NIOCore

/// A request head as a forward proxy reads it: the request line and the header fields.
struct ProxyRequestHead {
    let method: String
    let target: String
    let version: String
    let fields: [(name: String, value: String)]
    /// The bytes of the head, blank line included.
    let length: Int

    /// The head at the start of `buffer`, once it is complete.
    init?(_ buffer: ByteBuffer) {
        let bytes = Array(buffer.readableBytesView)
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let words = lines[0].split(separator: " ")
        guard words.count == 3 else { return nil }
        method = String(words[0])
        target = String(words[1])
        version = String(words[2])
        fields = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        length = end.upperBound
    }

    /// The value of a field, by name without regard to case.
    func field(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The host and port to connect to: `CONNECT`'s authority, or the absolute URL's.
    var destination: (host: String, port: Int)? {
        var authority = Substring(target)
        if method != "CONNECT" {
            guard target.hasPrefix("http://") else { return nil }
            authority = authority.dropFirst("http://".count).prefix { $0 != "/" && $0 != "?" }
        }
        guard let colon = authority.lastIndex(of: ":") else { return method == "CONNECT" ? nil : (String(authority), 80) }
        guard let port = Int(authority[authority.index(after: colon)...]) else { return nil }
        return (String(authority[..<colon]), port)
    }

    /// The head to send to the server: origin-form target, no proxy fields, `Connection: close`.
    func originForm() -> String {
        let path = target.dropFirst("http://".count).drop { $0 != "/" && $0 != "?" }
        var text = "\(method) \(path.isEmpty ? "/" : String(path)) \(version)\r\n"
        for (name, value) in fields {
            let lower = name.lowercased()
            if lower == "proxy-authorization" || lower == "proxy-connection" || lower == "connection" { continue }
            text += "\(name): \(value)\r\n"
        }
        return text + "Connection: close\r\n\r\n"
    }
}
