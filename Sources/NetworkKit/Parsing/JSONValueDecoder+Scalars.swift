import Foundation

// Scalars, for the single-value container and for the members and elements of the other two.
// `key` is where the value sits below this decoder's own (nil: it is this decoder's value);
// errors name that path.

extension JSONValueDecoding {
    /// A Boolean; `null` is a type mismatch here, not a missing value, as `JSONDecoder` has it.
    func bool(_ value: JSON, _ key: (any CodingKey)?) throws -> Bool {
        guard case .bool(let flag) = value else { throw typeMismatch(Bool.self, value, key) }
        return flag
    }

    func string(_ value: JSON, _ key: (any CodingKey)?) throws -> String {
        guard case .string(let text) = value else { throw mismatch(String.self, value, key) }
        return text
    }

    /// An integer: a whole `double` too (`3.0` is 3); one with a fraction, or too large, is corrupt.
    /// Inlined so each width gets its own code: shared, it would look up `Optional<T>` at run time.
    @inline(__always)
    func integer<T: FixedWidthInteger>(_ type: T.Type, _ value: JSON, _ key: (any CodingKey)?) throws -> T {
        let result: T?
        switch value {
        case .int(let number): result = T(exactly: number)
        case .double(let number): result = Self.integer(type, from: number)
        default: throw mismatch(type, value, key)
        }
        guard let result else { throw corrupted(key, "Parsed JSON number <\(value)> does not fit in \(type).") }
        return result
    }

    /// `number` read as `JSONDecoder` reads the text `JSON.serialized()` writes for it: below 2^53
    /// the whole number it is; from there, where one `Double` stands for a run of integers, the
    /// digits of its shortest text times a power of ten (`1.2345678901234567e+19` is
    /// 12345678901234567000), which `JSONDecoder` gets by reading such text as a `Decimal`.
    static func integer<T: FixedWidthInteger>(_ type: T.Type, from number: Double) -> T? {
        guard let whole = T(exactly: number) else { return nil }
        guard number.magnitude >= 0x1p53 else { return whole }
        let parts = "\(number.magnitude)".split(separator: "e")  // 1.2345678901234567e+19, 9007199254740994.0
        var exponent = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
        var digits: UInt64 = 0  // at most 17 significant digits and a trailing zero: no overflow
        var afterPoint = false
        for byte in parts[0].utf8 {
            if byte == UInt8(ascii: ".") {
                afterPoint = true
                continue
            }
            digits = digits * 10 + UInt64(byte - UInt8(ascii: "0"))
            if afterPoint { exponent -= 1 }
        }
        for _ in 0..<max(-exponent, 0) { digits /= 10 }
        for _ in 0..<max(exponent, 0) {
            let (shifted, overflow) = digits.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            digits = shifted
        }
        guard let magnitude = T(exactly: digits) else { return nil }
        return number < 0 ? 0 - magnitude : magnitude
    }

    /// A floating-point number; one that overflows, or underflows to zero, in `T` is corrupt.
    @inline(__always)
    func floatingPoint<T: BinaryFloatingPoint>(_ type: T.Type, _ value: JSON, _ key: (any CodingKey)?) throws -> T {
        switch value {
        case .int(let number):
            return T(number)
        case .double(let number):
            let converted = T(number)
            guard converted.isFinite, converted != 0 || number == 0 else {
                throw corrupted(key, "Parsed JSON number <\(number)> does not fit in \(type).")
            }
            return converted
        case .string(let text):
            // The strings the strategy names, compared byte for byte as JSONDecoder does.
            if case .convertFromString(let positive, let negative, let nan) = options.floats {
                if text.utf8.elementsEqual(positive.utf8) { return .infinity }
                if text.utf8.elementsEqual(negative.utf8) { return -.infinity }
                if text.utf8.elementsEqual(nan.utf8) { return .nan }
            }
            throw typeMismatch(type, value, key)
        default:
            throw mismatch(type, value, key)
        }
    }
}

extension JSONValueDecoding: SingleValueDecodingContainer {
    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try bool(value, nil) }
    func decode(_ type: String.Type) throws -> String { try string(value, nil) }
    func decode(_ type: Double.Type) throws -> Double { try floatingPoint(type, value, nil) }
    func decode(_ type: Float.Type) throws -> Float { try floatingPoint(type, value, nil) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type, value, nil) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type, value, nil) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type, value, nil) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type, value, nil) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type, value, nil) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type) throws -> Int128 { try integer(type, value, nil) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type, value, nil) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type, value, nil) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type, value, nil) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type, value, nil) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type, value, nil) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { try integer(type, value, nil) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unwrap(type) }
}
