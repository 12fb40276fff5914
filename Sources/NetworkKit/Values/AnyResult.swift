/// A request's result before the typed layer sees it: the parser's value, or why there is none.
typealias AnyResult = Result<any Sendable, NetworkError>
