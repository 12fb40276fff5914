/// What a request does with its answer, each kind with the options that belong to it. The
/// pipeline switches on it wherever the kinds differ: the limits, the cache, where the body goes,
/// how an answer is read, and what follows the finish.
enum RequestKind: Sendable {
    /// The body is kept in memory and parsed once it has all arrived.
    case plain
    /// The body goes to a file on disk (``Download``); the parser gets the file once it is whole.
    case download(Download)
    /// The body is parsed as it arrives, into items for the stream's consumers, and the request
    /// may connect again after its body ends (``StreamSetup``).
    case stream(StreamSetup)
    /// The request asks to upgrade to a WebSocket (``WebSocketSetup``): a `101` answer hands
    /// over the connection, any other status fails as a plain request's would.
    case webSocket(WebSocketSetup)
}
