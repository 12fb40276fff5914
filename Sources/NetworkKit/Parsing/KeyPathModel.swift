import Foundation

/// What `KeyPathModel` checks and follows: the business code's check and the content's key path.
/// It is bound to the decode that reads a `KeyPathModel` (a task-local value, bound on the thread
/// outside a task), so the app's `JSONDecoder` is used as it is, never changed, and can decode on
/// several threads at once.
struct KeyPathRoute: Sendable {
    /// The route of the decode under way on this task or thread.
    @TaskLocal static var current: KeyPathRoute?
    /// Where the business code is and which codes mean success; nil checks none.
    var businessCode: BusinessCodeCheck?
    /// Where the model is; no components for the whole document.
    var contentKeyPath: JSONKeyPath
}

/// The route did not lead to the model: a wrong business code, a key path that leads nowhere or
/// into a value that is neither object nor array. `JSONParser` says which, with its own error.
struct KeyPathMiss: Error {}

/// The model at the end of the route failed to decode: its error, with the coding path that
/// starts at the content (as if the content had been decoded on its own).
struct KeyPathModelFailure: Error {
    var error: DecodingError
}

/// A model at a key path of a document, decoded by `JSONDecoder` in one pass over the text: the
/// business code is checked, then the key path is walked through nested containers (components
/// are keys in objects and indices in arrays, as `JSON.value(at:)` reads them), then the model is
/// decoded where it leads. Throws `KeyPathMiss` or `KeyPathModelFailure`; the decoder's own
/// `DecodingError` means the text is not JSON.
struct KeyPathModel<Model: Decodable>: Decodable {
    let model: Model
    /// The code that matched, and the message found, when the route checks a code.
    let status: BusinessStatus?

    init(from decoder: any Decoder) throws {
        guard let route = KeyPathRoute.current else { throw KeyPathMiss() }
        if let check = route.businessCode {
            let code: JSON
            do { code = try Self.decode(JSON.self, at: check.codeKeyPath.components, in: decoder) } catch { throw KeyPathMiss() }
            guard check.okValues.contains(where: { code.matchesCode($0) }) else { throw KeyPathMiss() }
            let message = check.messageKeyPaths.lazy.compactMap { try? Self.decode(JSON.self, at: $0.components, in: decoder) }.first
            status = BusinessStatus(code: code, message: message.map { $0.stringValue ?? $0.description })
        } else {
            status = nil
        }
        do {
            model = try Self.decode(Model.self, at: route.contentKeyPath.components, in: decoder)
        } catch let error as DecodingError {
            throw KeyPathModelFailure(error: error.below(route.contentKeyPath.components.count))
        }
    }

    /// `T` at `path` below the decoder's value.
    private static func decode<T: Decodable>(_ type: T.Type, at path: [String], in decoder: any Decoder) throws -> T {
        guard let last = path.last else { return try decoder.singleValueContainer().decode(type) }
        var level = try Level(decoder)
        for component in path.dropLast() {
            level = try level.entering(component)
        }
        return try level.decode(type, at: last)
    }

    /// An object or an array on the way.
    private enum Level {
        case object(KeyedDecodingContainer<JSONKeyPathKey>)
        case array(any UnkeyedDecodingContainer)

        init(_ decoder: any Decoder) throws {
            if let object = try? decoder.container(keyedBy: JSONKeyPathKey.self) {
                self = .object(object)
            } else if let array = try? decoder.unkeyedContainer() {
                self = .array(array)
            } else {
                throw KeyPathMiss()
            }
        }

        /// The object or array at `component`.
        func entering(_ component: String) throws -> Level {
            switch self {
            case .object(let object):
                let key = try Self.key(component, in: object)
                if let nested = try? object.nestedContainer(keyedBy: JSONKeyPathKey.self, forKey: key) { return .object(nested) }
                if let nested = try? object.nestedUnkeyedContainer(forKey: key) { return .array(nested) }
            case .array(var array):
                try Self.skip(to: component, in: &array)
                // A failed attempt leaves the container at the same element.
                if let nested = try? array.nestedContainer(keyedBy: JSONKeyPathKey.self) { return .object(nested) }
                if let nested = try? array.nestedUnkeyedContainer() { return .array(nested) }
            }
            throw KeyPathMiss()
        }

        /// `T` at `component`; the decoder's errors are the value's.
        func decode<T: Decodable>(_ type: T.Type, at component: String) throws -> T {
            switch self {
            case .object(let object):
                return try object.decode(type, forKey: Self.key(component, in: object))
            case .array(var array):
                try Self.skip(to: component, in: &array)
                return try array.decode(type)
            }
        }

        private static func key(_ component: String, in object: KeyedDecodingContainer<JSONKeyPathKey>) throws -> JSONKeyPathKey {
            let key = JSONKeyPathKey(stringValue: component)
            guard object.contains(key) else { throw KeyPathMiss() }
            return key
        }

        /// Moves `array` to the element whose index `component` is.
        private static func skip(to component: String, in array: inout any UnkeyedDecodingContainer) throws {
            guard let index = Int(component), index >= 0, let count = array.count, index < count else { throw KeyPathMiss() }
            for _ in 0..<index { _ = try array.decode(Skipped.self) }
        }
    }

    /// An element passed over.
    private struct Skipped: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}

/// A component of a key path as a coding key.
struct JSONKeyPathKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension DecodingError {
    /// The same error with the first `count` keys of its coding path taken off.
    func below(_ count: Int) -> DecodingError {
        func moved(_ context: Context) -> Context {
            Context(codingPath: Array(context.codingPath.dropFirst(count)), debugDescription: context.debugDescription,
                    underlyingError: context.underlyingError)
        }
        switch self {
        case .typeMismatch(let type, let context): return .typeMismatch(type, moved(context))
        case .valueNotFound(let type, let context): return .valueNotFound(type, moved(context))
        case .keyNotFound(let key, let context): return .keyNotFound(key, moved(context))
        case .dataCorrupted(let context): return .dataCorrupted(moved(context))
        @unknown default: return self
        }
    }
}
