import Foundation

extension RequestBody {
    /// `value` encoded by `encoder` as an `application/json` body; parameters go in the query.
    ///
    /// ```swift
    /// request.body = try .json(NewOrder(item: 42, quantity: 2))
    /// ```
    /// - Throws: `NetworkError.invalidRequest` when `encoder` cannot encode `value`.
    public static func json(_ value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws(NetworkError) -> RequestBody {
        do {
            return .data(try encoder.encode(value), contentType: "application/json")
        } catch {
            throw .invalidRequest("cannot encode \(type(of: value)) as JSON: \(error)")
        }
    }
}

extension Dictionary where Key == String, Value == JSON {
    /// The properties of `value` as a request's parameters, as `encoder` encodes them: sent in
    /// the query, as a form or as a JSON object, as the request's ``RequestBody`` says. Nested
    /// values are sent as nested parameters are (`a[b]=1` in a query or a form).
    ///
    /// ```swift
    /// struct Search: Encodable { var q: String; var page: Int }
    /// let search = Request(path: "/search", parameters: try .encoding(Search(q: "swift", page: 2)))
    /// ```
    /// - Throws: `NetworkError.invalidParameter` when `value` does not encode as a JSON object
    ///   (a number, a string or an array has no names), `.invalidRequest` when `encoder` cannot
    ///   encode it.
    public static func encoding(_ value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws(NetworkError) -> [String: JSON] {
        let json: JSON
        do {
            json = try JSON(data: encoder.encode(value))
        } catch {
            throw .invalidRequest("cannot encode \(type(of: value)) as parameters: \(error)")
        }
        switch json {
        case .object(let parameters):
            return parameters
        case .array: throw Self.notAnObject(value, "an array")
        case .string: throw Self.notAnObject(value, "a string")
        case .int, .double: throw Self.notAnObject(value, "a number")
        case .bool: throw Self.notAnObject(value, "a Boolean")
        case .null: throw Self.notAnObject(value, "null")
        }
    }

    private static func notAnObject(_ value: some Encodable, _ kind: String) -> NetworkError {
        .invalidParameter(name: "\(type(of: value))", reason: "parameters must encode as a JSON object, not \(kind)")
    }
}
