import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Loopback addresses that misbehave at the TCP level, for connection-failure tests.
public enum Listeners {
    /// A loopback port with nothing listening: connecting is refused at once.
    public static func closedPort() throws -> Int {
        let socket = try BoundSocket()
        let port = socket.port
        socket.close()
        return port
    }
}

/// A loopback listener that never accepts, with its backlog filled, so that new connection
/// attempts hang until the client's connect timeout.
public final class UnacceptingListener: @unchecked Sendable {
    public let port: Int
    private let listener: BoundSocket
    private var fillers: [Int32] = []

    public init() throws {
        listener = try BoundSocket()
        port = listener.port
        guard listen(listener.descriptor, 0) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        // Fill the accept queue; afterwards the kernel drops further SYNs.
        for _ in 0..<4 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = BoundSocket.loopback(port: port)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            fillers.append(filler)
        }
        Thread.sleep(forTimeInterval: 0.05)
    }

    deinit {
        fillers.forEach { _ = Glibc.close($0) }
        listener.close()
    }
}

final class BoundSocket {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: actual.sin_port))
    }

    func close() {
        _ = Glibc.close(descriptor)
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// A loopback HTTP/1.1 server that answers each request with the bytes `respond` gives for its
/// request line, exactly as given (a header that is not UTF-8, broken framing), then closes the
/// connection. Reads a request's head only (no body). Keeps the request lines it saw. Serves
/// until released.
public final class ScriptedServer: @unchecked Sendable {
    public let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var lines: [String] = []

    public init(respond: @escaping @Sendable (String) -> [UInt8]) throws {
        let socket = try BoundSocket()
        listener = socket.descriptor
        port = socket.port
        guard listen(listener, 16) == 0 else {
            socket.close()
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        let descriptor = listener
        let thread = Thread { [weak self] in
            // The thread closes the listener when `accept` fails (after deinit's shutdown), so
            // its number cannot be reused by another test's socket while this loop still runs.
            defer { _ = Glibc.close(descriptor) }
            while true {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { return }
                var timeout = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                var request: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                while request.isEmpty || !String(decoding: request, as: UTF8.self).contains("\r\n\r\n") {
                    let count = read(connection, &chunk, chunk.count)
                    guard count > 0 else { break }
                    request += chunk[0..<count]
                }
                let line = String(decoding: request, as: UTF8.self).components(separatedBy: "\r\n").first ?? ""
                self?.record(line)
                let response = respond(line)
                // MSG_NOSIGNAL: a client that left must not end the test process with SIGPIPE.
                _ = response.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                _ = Glibc.close(connection)
            }
        }
        thread.start()
    }

    deinit {
        // Wakes the accept loop, which then closes the listener and ends.
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// The request lines received so far, in order.
    public var requestLines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    private func record(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }
}
