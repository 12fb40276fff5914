import Foundation

/// The cookie-date algorithm of RFC 6265 §5.1.1, which reads the `Expires` attribute.
///
/// It is lenient the way the RFC is: the text is cut into tokens at the delimiter bytes, and the
/// first token that looks like a time, a day of the month, a month and a year (tried in that
/// order) supplies each part; other tokens (the weekday, `GMT`, an offset) are ignored, so a
/// weekday that does not fit the date does not matter. Two-digit years 70–99 are 19xx and 0–69
/// are 20xx. A date with a missing part, a part out of range (day 1–31, year 1601 or later,
/// hour ≤ 23, minute and second ≤ 59) or a day that its month lacks (31 April, 29 February of a
/// common year) is no date. Every date is read as UTC.
enum CookieDate {
    /// The instant `text` names, or nil when it is no cookie-date.
    static func parse<Bytes: Collection<UInt8>>(_ text: Bytes) -> Date? {
        var parts = Parts()
        for token in tokens(of: text) {
            parts.take(token)
        }
        guard let seconds = parts.secondsSince1970() else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The date-tokens of `text`: the runs of non-delimiter bytes.
    private static func tokens<Bytes: Collection<UInt8>>(of text: Bytes) -> [ArraySlice<UInt8>] {
        Array(text).split(whereSeparator: isDelimiter)
    }

    /// delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x20...0x2F, 0x3B...0x40, 0x5B...0x60, 0x7B...0x7E: true
        default: false
        }
    }

    /// The parts found so far; each is taken from the first token that fits it.
    private struct Parts {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?

        private static let months = ["jan", "feb", "mar", "apr", "may", "jun",
                                     "jul", "aug", "sep", "oct", "nov", "dec"].map { Array($0.utf8) }

        /// Gives `token` to the first part still missing whose production it matches.
        mutating func take(_ token: ArraySlice<UInt8>) {
            if time == nil, let found = Self.time(token) {
                time = found
            } else if day == nil, let found = Self.digits(token, count: 1...2) {
                day = found
            } else if month == nil, let found = Self.month(token) {
                month = found
            } else if year == nil, let found = Self.digits(token, count: 2...4) {
                year = found
            }
        }

        /// `count` leading digits, then the end or a non-digit (what follows is not looked at).
        private static func digits(_ token: ArraySlice<UInt8>, count: ClosedRange<Int>) -> Int? {
            let run = token.prefix(while: isDigit)
            guard count.contains(run.count) else { return nil }
            return run.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }

        /// hms-time = time-field ":" time-field ":" time-field, each field one or two digits,
        /// then the end or a non-digit.
        private static func time(_ token: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
            var rest = token
            var fields: [Int] = []
            for index in 0..<3 {
                let run = rest.prefix(while: isDigit)
                guard (1...2).contains(run.count) else { return nil }
                fields.append(run.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) })
                rest = rest.dropFirst(run.count)
                if index < 2 {
                    guard rest.first == UInt8(ascii: ":") else { return nil }
                    rest = rest.dropFirst()
                }
            }
            return (fields[0], fields[1], fields[2])
        }

        /// A token whose first three bytes name a month, in any case.
        private static func month(_ token: ArraySlice<UInt8>) -> Int? {
            guard token.count >= 3 else { return nil }
            let prefix = token.prefix(3).map { $0 | 0x20 }  // ASCII letters to lower case
            return months.firstIndex(of: prefix).map { $0 + 1 }
        }

        private static func isDigit(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }

        /// Seconds since 1970 (UTC) of the date, or nil when a part is missing, out of range
        /// or names a day that does not exist.
        func secondsSince1970() -> Int? {
            guard let time, let day, let month, var year else { return nil }
            if (70...99).contains(year) { year += 1900 }
            if (0...69).contains(year) { year += 2000 }
            guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
                  day <= Self.days(inMonth: month, of: year) else { return nil }
            let days = Self.daysSince1970(year: year, month: month, day: day)
            return ((days * 24 + time.hour) * 60 + time.minute) * 60 + time.second
        }

        private static func isLeap(_ year: Int) -> Bool {
            year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        }

        private static func days(inMonth month: Int, of year: Int) -> Int {
            switch month {
            case 2: isLeap(year) ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
        }

        /// Leap years in 1 ... year - 1 (the Gregorian rule carried back).
        private static func leapYears(before year: Int) -> Int {
            let last = year - 1
            return last / 4 - last / 100 + last / 400
        }

        private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
            let yearDays = 365 * (year - 1970) + leapYears(before: year) - leapYears(before: 1970)
            let monthDays = (1..<month).reduce(0) { $0 + days(inMonth: $1, of: year) }
            return yearDays + monthDays + day - 1
        }
    }
}
