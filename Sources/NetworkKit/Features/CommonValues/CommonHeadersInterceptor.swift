/// Adds the service's common header fields to every request: read when each request is
/// prepared, so a token read here is always the current one. A request's own field of the same
/// name wins. Created by `ServiceConfiguration.commonHeaders`.
struct CommonHeadersInterceptor: BuiltInInterceptor {
    static let place = BuiltInPlace.leading(rank: 2)
    static let prepares = true
    static let serviceStep = ServiceDefaults.commonHeaders

    /// The header fields, read once per request.
    var headers: @Sendable () -> [String: String]

    /// Adds what `headers` returns to every request.
    init(_ headers: @escaping @Sendable () -> [String: String]) {
        self.headers = headers
    }

    /// Adds each common field the draft does not have (names compared case-insensitively).
    func prepare(_ draft: inout RequestDraft, context: InterceptorContext) throws {
        for (name, value) in headers() where draft.headers[name] == nil {
            guard !draft.headers.keys.contains(where: { HeaderFields.sameName($0, name) }) else { continue }
            draft.headers[name] = value
        }
    }
}
