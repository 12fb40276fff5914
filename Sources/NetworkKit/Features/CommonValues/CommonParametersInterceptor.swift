/// Adds the service's common parameters to every request (YTKNetwork's and DYNetwork's common
/// arguments): read when each request is prepared, so a value read here is always the current
/// one. A request's own parameter of the same name wins. Created by
/// `ServiceConfiguration.commonParameters`.
struct CommonParametersInterceptor: BuiltInInterceptor {
    static let place = BuiltInPlace.leading(rank: 1)
    static let prepares = true
    static let serviceDefault = ServiceDefaults.commonParameters

    /// The parameters, read once per request.
    var parameters: @Sendable () -> [String: JSON]

    /// Adds what `parameters` returns to every request.
    init(_ parameters: @escaping @Sendable () -> [String: JSON]) {
        self.parameters = parameters
    }

    /// Adds each common parameter the draft does not have.
    func prepare(_ draft: inout RequestDraft, context: InterceptorContext) throws {
        for (name, value) in parameters() where draft.parameters[name] == nil {
            draft.parameters[name] = value
        }
    }
}
