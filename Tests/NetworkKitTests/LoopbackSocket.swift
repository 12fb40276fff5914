import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening TCP socket on a free port of 127.0.0.1, for the tests' servers that speak bytes
/// no framework would send (or none at all).
enum LoopbackSocket {
    /// Why a listening socket could not be made.
    struct Failure: Error, CustomStringConvertible {
        let step: String
        var description: String { "could not \(step) a loopback socket (errno \(errno))" }
    }

    /// A socket listening on 127.0.0.1 with `backlog`, and its port.
    static func bound(backlog: Int32 = 16) throws -> (socket: Int32, port: Int) {
        #if os(Linux)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let listener = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard listener >= 0 else { throw Failure(step: "open") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && listen(listener, backlog) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw Failure(step: "bind")
        }
        return (listener, Int(UInt16(bigEndian: address.sin_port)))
    }
}
