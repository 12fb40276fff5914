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

    /// A service with `configuration` on this transport, its exchanges recorded in `recorder`
    /// when there is one.
    func service(_ configuration: ServiceConfiguration, recorder: HARRecorder? = nil) -> Service {
        guard let recorder else {
            return switch self {
            case .nio: Service(configuration: configuration, transport: NIOTransport())
            case .urlsession: Service(configuration: configuration)
            }
        }
        let base: any Transport = switch self {
        case .nio: NIOTransport()
        case .urlsession: URLSessionTransport()
        }
        return Service(configuration: configuration, transport: RecordingTransport(wrapping: base, recorder: recorder))
    }

    /// A service with `configuration` on this transport, reaching servers as `connection` says,
    /// its exchanges recorded in `recorder` when there is one; throws the kit's error when the
    /// transport cannot do what it asks.
    func service(_ configuration: ServiceConfiguration, connection: ConnectionSettings, recorder: HARRecorder? = nil) throws -> Service {
        guard let recorder else {
            return switch self {
            case .nio: Service(configuration: configuration, transport: try NIOTransport(connection: connection))
            case .urlsession: try Service(configuration: configuration, connection: connection)
            }
        }
        let base: any Transport = switch self {
        case .nio: try NIOTransport(connection: connection)
        case .urlsession: try URLSessionTransport(connection: connection)
        }
        return Service(configuration: configuration, transport: RecordingTransport(wrapping: base, recorder: recorder))
    }
}
