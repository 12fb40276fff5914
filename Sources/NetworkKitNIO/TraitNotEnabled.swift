#if !NIO
/// The SwiftNIO transport exists only when the package that depends on NetworkKit enables its
/// `NIO` trait, which also brings AsyncHTTPClient and SwiftNIO into that package's graph:
/// `.package(url: …, branch: "main", traits: ["NIO"])`. Without the trait this module holds only
/// this marker, so that a use of `NIOTransport` fails to compile with a message naming the trait.
@available(*, unavailable, message: "NIOTransport needs NetworkKit's NIO trait: add traits: [\"NIO\"] to NetworkKit's .package line (in its own folder: --enable-all-traits)")
public struct NIOTransport {
    /// Unavailable with its type: the transport needs the `NIO` trait.
    public init(connectionsPerHost: Int = 8) {}
}
#endif
