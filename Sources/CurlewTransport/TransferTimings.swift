/// Where the time of one exchange went, in microseconds.
///
/// A phase that did not happen is `nil`, never zero or negative: DNS, connect and TLS on a reused
/// connection, TLS on plain HTTP. `queued` is the time from submission until the exchange had a
/// connection to use or began to make one: in the agent's queue, then in libcurl's per-host
/// queue under the connection limits. Every other phase is counted from that moment, so `total`
/// is libcurl's own total less the time libcurl held the exchange.
public struct TransferTimings: Sendable, Equatable, Codable {
    public var queued: Int64
    public var dns: Int64?
    public var connect: Int64?
    public var tls: Int64?
    /// Writing the request line, headers and body.
    public var send: Int64
    /// From the end of sending to the first response byte (server think time plus one round trip).
    public var wait: Int64
    /// From the first response byte to the last.
    public var receive: Int64
    /// Time spent on redirects before the final exchange started; `nil` without redirects.
    public var redirect: Int64?
    public var total: Int64

    public init(
        queued: Int64, dns: Int64?, connect: Int64?, tls: Int64?,
        send: Int64, wait: Int64, receive: Int64, redirect: Int64?, total: Int64
    ) {
        self.queued = queued
        self.dns = dns
        self.connect = connect
        self.tls = tls
        self.send = send
        self.wait = wait
        self.receive = receive
        self.redirect = redirect
        self.total = total
    }

    /// The longest a phase can be: a hundred years, in microseconds. A record read back that says
    /// more, or less than zero, is damaged: its phases are summed (the elapsed time, a waterfall's
    /// starts), and sums of such numbers overflow.
    public static let longestPhase: Int64 = 100 * 365 * 24 * 3600 * 1_000_000
    /// The longest `elapsed` (queued plus total) of phases no longer than `longestPhase`.
    public static let longestElapsed = 2 * longestPhase

    private enum CodingKeys: String, CodingKey {
        case queued, dns, connect, tls, send, wait, receive, redirect, total
    }

    /// Reads the phases as they are written, refusing any outside zero to `longestPhase`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func checked(_ value: Int64, _ key: CodingKeys) throws -> Int64 {
            guard (0...Self.longestPhase).contains(value) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container,
                                                       debugDescription: "\(key.stringValue) is \(value) µs, not from 0 to a hundred years")
            }
            return value
        }
        func phase(_ key: CodingKeys) throws -> Int64 { try checked(try container.decode(Int64.self, forKey: key), key) }
        func optionalPhase(_ key: CodingKeys) throws -> Int64? {
            try container.decodeIfPresent(Int64.self, forKey: key).map { try checked($0, key) }
        }
        self.init(queued: try phase(.queued), dns: try optionalPhase(.dns), connect: try optionalPhase(.connect), tls: try optionalPhase(.tls),
                  send: try phase(.send), wait: try phase(.wait), receive: try phase(.receive), redirect: try optionalPhase(.redirect),
                  total: try phase(.total))
    }

    /// Every phase zero or absent: an exchange that was not measured, or that never started.
    public static let zero = TransferTimings(queued: 0, dns: nil, connect: nil, tls: nil, send: 0, wait: 0, receive: 0, redirect: nil, total: 0)

    /// Builds the phases from libcurl's cumulative marks (microseconds from the exchange's start).
    /// The phases follow one another and add up to the total: DNS, connect and TLS for a new
    /// connection, then `send` from the connection being ready (from the start, on a reused
    /// connection, whose set-up libcurl still spends) to the request's last byte, `wait` to the
    /// response's first byte and `receive` to the end.
    ///
    /// libcurl 7.88 has no mark for the last byte written, and the transport's own clock starts
    /// elsewhere than libcurl's, so `measuredWait` is taken on the transport's clock alone: from
    /// the last byte it saw written to the status line it saw arrive (a write seen late, after
    /// the thread lost its core, is not the last byte's moment: `SendStamp`). Without
    /// it (no wire capture), everything from pre-transfer to the first byte counts as waiting.
    ///
    /// The transport follows redirects hop by hop, so these are the final hop's marks;
    /// `earlierHops` is the time the hops before it took, reported as `redirect` and counted in
    /// `total`.
    ///
    /// An exchange that ended before libcurl could send (no pre-transfer mark on a new
    /// connection: a refused or timed-out connect, a failed handshake, a cancel meanwhile) spent
    /// its time in the step it was in: resolving the name until that was done, connecting until
    /// the connection was up, and the handshake (or a proxy's tunnel) after that. Its send, wait
    /// and receive are zero: nothing went out and nothing was awaited.
    ///
    /// libcurl 7.88 (without `CURLINFO_QUEUE_TIME_T`) counts the time it held the exchange in its
    /// per-host queue, waiting for a connection under the connection limits, in its total but
    /// not in its other marks, which start when the exchange left that queue. `heldByLibcurl` is
    /// that wait (`nil`: the exchange never left the queue); it is moved from the total to
    /// `queued`, so a waiting exchange shows as queued, never as resolving, sending or
    /// receiving.
    static func fromCumulativeMarks(
        queued: Int64,
        nameLookup: Int64, connected: Int64, tlsDone: Int64, preTransfer: Int64,
        firstByte: Int64, total: Int64, measuredWait: Int64?,
        reusedConnection: Bool, heldByLibcurl: Int64?, earlierHops: Int64? = nil
    ) -> TransferTimings {
        let libcurlTotal = max(total, 0)
        let held = min(max(heldByLibcurl ?? libcurlTotal, 0), libcurlTotal)
        let total = libcurlTotal - held
        let queued = max(queued, 0) + held
        guard heldByLibcurl != nil else {
            return TransferTimings(queued: queued, dns: nil, connect: nil, tls: nil, send: 0, wait: 0, receive: 0,
                                   redirect: earlierHops, total: total + (earlierHops ?? 0))
        }
        guard reusedConnection || preTransfer > 0 else {
            // A connection made proves the name was found, whatever the lookup's mark says.
            let resolved = nameLookup > 0 || connected > 0
            let dns = resolved ? min(max(nameLookup, 0), total) : total
            let connect: Int64? = resolved ? (connected > 0 ? max(min(connected, total) - dns, 0) : total - dns) : nil
            let settled = dns + (connect ?? 0)
            let tls: Int64? = connected > 0 && total > settled ? total - settled : nil
            return TransferTimings(queued: queued, dns: dns, connect: connect, tls: tls, send: 0, wait: 0, receive: 0,
                                   redirect: earlierHops, total: total + (earlierHops ?? 0))
        }
        let firstByte = firstByte > 0 ? min(firstByte, total) : total
        let dns: Int64? = reusedConnection ? nil : min(max(nameLookup, 0), firstByte)
        let connect: Int64? = reusedConnection ? nil : max(min(connected, firstByte) - (dns ?? 0), 0)
        let tls: Int64? = (reusedConnection || tlsDone <= 0) ? nil : max(min(tlsDone, firstByte) - max(connected, 0), 0)
        let ready = min((dns ?? 0) + (connect ?? 0) + (tls ?? 0), firstByte)
        let longestWait = firstByte - ready
        let wait = min(max(measuredWait ?? (firstByte - max(preTransfer, ready)), 0), longestWait)
        return TransferTimings(
            queued: queued,
            dns: dns,
            connect: connect,
            tls: tls,
            send: longestWait - wait,
            wait: wait,
            receive: total - firstByte,
            redirect: earlierHops,
            total: total + (earlierHops ?? 0)
        )
    }
}
