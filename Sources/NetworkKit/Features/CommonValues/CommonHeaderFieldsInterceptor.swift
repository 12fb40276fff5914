/// Adds the service's common header fields to every request: read when each request is
/// prepared, so a token read here is always the current one. A request's own fields of a name
/// win over the common fields of that name. Created by `ServiceConfiguration.commonHeaderFields`.
struct CommonHeaderFieldsInterceptor: BuiltInInterceptor {
    static let place = BuiltInPlace.leading(rank: 2)
    static let prepares = true
    static let serviceDefault = ServiceDefaults.commonHeaderFields

    /// The header fields, read once per request.
    var headerFields: @Sendable () -> HTTPFields

    /// Adds what `headerFields` returns to every request.
    init(_ headerFields: @escaping @Sendable () -> HTTPFields) {
        self.headerFields = headerFields
    }

    /// Adds each common field whose name the draft has no field of, in order.
    func prepare(_ draft: inout RequestDraft, context: InterceptorContext) throws {
        let own = Set(draft.headerFields.lazy.map(\.name))
        for field in headerFields() where !own.contains(field.name) {
            draft.headerFields.append(field)
        }
    }
}
