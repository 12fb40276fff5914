import Foundation

/// What the pipeline and a transfer see of a streaming request: its parser and its consumers,
/// without the item type. `StreamSink` is the one implementation; the pipeline stays non-generic.
///
/// A transfer calls `begin`, then `feed` for each chunk, never two at once (the transport
/// contract serializes a transfer's events); the pipeline then calls `endConnection`, and the
/// next connection begins only after it returned. Consumers run elsewhere; `close` ends them.
protocol StreamSinking: AnyObject, Sendable {
    /// A connection's body begins (an accepted status that is not 204): the parser checks the
    /// head and forgets what the last body left unfinished.
    func begin(_ response: Response) throws(NetworkError)
    /// Hands `chunk` to the consumers (parsed into items, or as it is to the sequence that
    /// parses it). Returns the error that must stop the
    /// stream: the parser's, or the buffer's when it is full and the transport cannot wait
    /// (`canWait` false); the transport then waits in `waitForRoom` before reading on.
    func feed(_ chunk: Data, request: AnyRequest, canWait: Bool) -> NetworkError?
    /// A connection ended: its body as it should (`bodyEnded`: the parser's last items go to the
    /// consumers), or otherwise. Returns once every chunk of it was parsed, with the error that
    /// must stop the stream (a parser's), if any.
    func endConnection(bodyEnded: Bool, request: AnyRequest) async -> NetworkError?
    /// True when the consumers have room for more items.
    var hasRoom: Bool { get }
    /// Returns once the consumers have room, or the stream was closed.
    func waitForRoom() async
    /// What the last body said about resuming (`Last-Event-ID`, `retry:`).
    var resumption: StreamResumption { get }
    /// Items delivered so far, and connections whose body began.
    var counts: (items: Int, connections: Int) { get }
    /// The request finished with `result`: a sequence consumer gets it after the items it holds,
    /// and a waiting transport is let go.
    func close(_ result: Result<any Sendable, NetworkError>)
}
