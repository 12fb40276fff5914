#if NIO
import AsyncHTTPClient
import Foundation
import NetworkKit
import NIOCore
import NIOHTTP1

/// How an `http:` request reaches an HTTP proxy without a tunnel: the client connects to the
/// proxy as if it were the server, and this handler, placed after the request encoder of each
/// connection, turns the head's origin-form target (`/path?query`) into the absolute form
/// (`http://host:port/path?query`, RFC 9112 §3.2.2) from the head's `Host` field. A head whose
/// target is already absolute, or that has no `Host`, passes unchanged.
final class AbsoluteFormTargets: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data), head.uri.hasPrefix("/"),
              let host = head.headers.first(name: "host") else {
            context.write(data, promise: promise)
            return
        }
        head.uri = "http://" + host + head.uri
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }

    /// The client configuration for absolute-form requests to a proxy: `configuration` with no
    /// proxy of AsyncHTTPClient's own, and each HTTP/1 connection given the rewriting handler
    /// after whatever `configuration` already sets up on it.
    static func configuration(from configuration: HTTPClient.Configuration) -> HTTPClient.Configuration {
        var direct = configuration
        direct.proxy = nil
        let earlier = configuration.http1_1ConnectionDebugInitializer
        direct.http1_1ConnectionDebugInitializer = { channel in
            let added = channel.eventLoop.submit {
                let pipeline = channel.pipeline.syncOperations
                let encoder = try pipeline.handler(type: HTTPRequestEncoder.self)
                try pipeline.addHandler(AbsoluteFormTargets(), position: .after(encoder))
            }
            guard let earlier else { return added }
            return added.flatMap { earlier(channel) }
        }
        return direct
    }

    /// The `Host` field for `url`: its host, in brackets when it is an IPv6 address, and its port
    /// unless it is 80.
    static func hostField(for url: URL) -> String? {
        guard let host = url.host, !host.isEmpty else { return nil }
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        guard let port = url.port, port != 80 else { return name }
        return "\(name):\(port)"
    }
}

@available(*, unavailable)
extension AbsoluteFormTargets: Sendable {}
#endif
