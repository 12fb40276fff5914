/// Checks a request's parameters before anything is sent (see ``ParameterRule``): the first rule
/// they break fails the request with `NetworkError.invalidParameter`. Created by
/// ``AnyRequest/parameterRules``; it goes at the end of the request's interceptors, so it checks
/// the parameters as they will be encoded, the service's common ones included.
struct ParameterRulesInterceptor: BuiltInInterceptor {
    static let place = BuiltInPlace.last
    static let prepares = true

    /// The rules, checked in order.
    var rules: [ParameterRule]

    /// Checks `rules` on every request it is given to.
    init(_ rules: [ParameterRule]) {
        self.rules = rules
    }

    /// Throws `NetworkError.invalidParameter` for the first rule the draft's parameters break.
    func prepare(_ draft: inout RequestDraft, context: InterceptorContext) throws {
        for rule in rules {
            if let reason = rule.violation(in: draft.parameters) {
                throw NetworkError.invalidParameter(name: rule.name, reason: reason)
            }
        }
    }
}
