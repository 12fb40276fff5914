import Foundation

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms a
/// recipient must still accept.
enum HTTPDate {
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss 'GMT'",   // Sun, 06 Nov 1994 08:49:37 GMT
        "EEEE, dd-MMM-yy HH:mm:ss 'GMT'",    // Sunday, 06-Nov-94 08:49:37 GMT
        "EEE MMM d HH:mm:ss yyyy",           // Sun Nov  6 08:49:37 1994
    ]

    static func parse(_ text: String) -> Date? {
        let collapsed = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: collapsed) { return date }
        }
        return nil
    }
}
