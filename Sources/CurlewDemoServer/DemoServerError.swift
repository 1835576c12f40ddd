import Foundation
import NIOCore

/// Why the demo server could not start listening.
public struct DemoServerError: Error, Sendable, CustomStringConvertible {
    public let description: String

    /// The address could not be bound: `reason` is the system's (address in use, not a local address).
    static func cannotListen(host: String, port: Int, _ error: any Error) -> DemoServerError {
        let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
        return DemoServerError(description: "cannot listen on \(host):\(port): \(reason)")
    }

    /// The demo certificates cannot be written to `path`, for `reason`.
    static func cannotWriteCertificates(to path: String, _ reason: String) -> DemoServerError {
        DemoServerError(description: "cannot write the demo certificates to \(path): \(reason)")
    }
}
