import ArgumentParser
import Foundation
import NetworkKit
import NetworkKitNIO

/// `--transport nio|urlsession`: which transport a command's service sends through. The default
/// is the platform's fastest: SwiftNIO on Linux (where FoundationNetworking is the speed limit),
/// URLSession on Apple platforms.
enum TransportChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case nio
    case urlsession

    static var platformDefault: TransportChoice {
        #if os(Linux)
        .nio
        #else
        .urlsession
        #endif
    }

    /// A service with `configuration` on this transport.
    func service(_ configuration: ServiceConfiguration) -> Service {
        switch self {
        case .nio: Service(configuration: configuration, transport: NIOTransport())
        case .urlsession: Service(configuration: configuration)
        }
    }
}
