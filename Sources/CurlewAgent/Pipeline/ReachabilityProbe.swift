import Foundation

/// One reachability check: resolve the host, then try a TCP connection to its port, bounded by a
/// timeout. Blocking; the reachability monitor runs it off every request path.
enum ReachabilityProbe {
    static func probe(host: String, port: Int, timeout: Duration) -> ReachabilityStatus {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var results: UnsafeMutablePointer<addrinfo>?
        let unbracketed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard getaddrinfo(unbracketed, String(port), &hints, &results) == 0, let first = results else { return .notReachable }
        defer { freeaddrinfo(results) }
        let deadline = ContinuousClock.now + timeout
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let address = candidate {
            if connects(address.pointee, until: deadline) { return .reachable }
            candidate = address.pointee.ai_next
        }
        return .notReachable
    }

    private static func connects(_ address: addrinfo, until deadline: ContinuousClock.Instant) -> Bool {
        let descriptor = socket(address.ai_family, address.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), address.ai_protocol)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if connect(descriptor, address.ai_addr, address.ai_addrlen) == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return false }
        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        let milliseconds = Int32(clamping: max(1, remaining.wholeMilliseconds))
        guard poll(&poller, 1, milliseconds) == 1 else { return false }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else { return false }
        return failure == 0
    }
}
