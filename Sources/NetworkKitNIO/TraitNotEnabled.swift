#if !NIO
/// The SwiftNIO transport exists only when the package that depends on NetworkKit enables its
/// `NIO` trait, which also brings AsyncHTTPClient and SwiftNIO into that package's graph:
/// `.package(url: …, branch: "main", traits: ["NIO"])`. Without the trait this module is empty
/// but for this marker, whose message says so where `NIOTransport` is used.
@available(*, unavailable, message: "NIOTransport needs NetworkKit's NIO trait: add traits: [\"NIO\"] to NetworkKit's .package line (in its own folder: --enable-all-traits)")
public struct NIOTransport {}
#endif
