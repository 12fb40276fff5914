/// What a streaming request adds to its options: where its items go, and when it reconnects.
struct StreamSetup: Sendable {
    let sink: any StreamSinking
    var reconnection: StreamReconnection
}
