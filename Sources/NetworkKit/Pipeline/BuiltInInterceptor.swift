/// Where a built-in interceptor goes in a list that does not hold one yet.
enum BuiltInPlace: Sendable {
    /// Before the first of the user's interceptors, after the leading built-ins of a lower rank.
    case leading(rank: Int)
    /// At the end of the list.
    case last
}

/// An interceptor the kit's conveniences create (`ServiceConfiguration.baseURL`, `signer`,
/// `AnyRequest.parameterRules`…). Each kind appears at most once in a list: a convenience
/// replaces it where it stands, or inserts it at its ``BuiltInPlace``.
protocol BuiltInInterceptor: RequestInterceptor {
    /// Where a convenience inserts this kind of interceptor.
    static var place: BuiltInPlace { get }
    /// Whether it implements `prepare` (true) or `adapt` (false); none of them retries. The
    /// chain calls a built-in interceptor's one hook only.
    static var prepares: Bool { get }
    /// The step of the service's a request leaves this interceptor out with
    /// (``AnyRequest/skippedServiceDefaults``); empty when a request cannot leave it out.
    static var serviceStep: ServiceDefaults { get }
}

extension BuiltInInterceptor {
    static var serviceStep: ServiceDefaults { [] }
}

extension Array where Element == any RequestInterceptor {
    /// The list's interceptor of kind `kind`, if it has one.
    func builtIn<Kind: BuiltInInterceptor>(_ kind: Kind.Type) -> Kind? {
        for interceptor in self {
            if let match = interceptor as? Kind { return match }
        }
        return nil
    }

    /// Puts `interceptor` in place of the list's interceptor of its kind, or, when the list has
    /// none, at the kind's place; nil removes the list's one.
    mutating func setBuiltIn<Kind: BuiltInInterceptor>(_ interceptor: Kind?, kind: Kind.Type = Kind.self) {
        if let index = firstIndex(where: { $0 is Kind }) {
            if let interceptor { self[index] = interceptor } else { remove(at: index) }
            return
        }
        guard let interceptor else { return }
        switch Kind.place {
        case .last:
            append(interceptor)
        case .leading(let rank):
            let index = firstIndex { element in
                guard let builtIn = element as? any BuiltInInterceptor,
                      case .leading(let other) = type(of: builtIn).place else { return true }
                return other > rank
            } ?? endIndex
            insert(interceptor, at: index)
        }
    }

    /// Where an interceptor of the user's goes by default: before the built-ins that go last
    /// (the signer) at the end of the list.
    var placeForOwnInterceptor: Int {
        var index = endIndex
        while index > startIndex, let builtIn = self[index - 1] as? any BuiltInInterceptor,
              case .last = type(of: builtIn).place {
            index -= 1
        }
        return index
    }

    /// The user's interceptors of the list, in order: every one but the built-in steps.
    var ownInterceptors: [any RequestInterceptor] {
        filter { !($0 is any BuiltInInterceptor) }
    }

    /// Puts `own` in place of the list's own interceptors, between the built-in steps that lead
    /// and those that go last, which stay as they are.
    mutating func replaceOwnInterceptors(with own: [any RequestInterceptor]) {
        removeAll { !($0 is any BuiltInInterceptor) }
        insert(contentsOf: own, at: placeForOwnInterceptor)
    }
}
