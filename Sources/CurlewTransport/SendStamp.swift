/// When a request's last bytes went out, from the stamps the transfer thread takes in the debug
/// callbacks that follow libcurl's writes (wire capture only).
///
/// libcurl calls those callbacks after its write returns, and the write wakes the server, which
/// on shared cores (an in-process demo server above all) can take the transfer thread's core at
/// once and answer before the thread runs again. A stamp taken then falls after the answer
/// arrived: the wait would shrink to microseconds and the send take the server's time. So a
/// stamp taken after the thread lost its core since the moment checked before is not kept, and
/// the last byte's moment stays the one before it: the previous write's kept stamp, or the
/// request being ready to go. The wait then counts from there; it is too long by what the
/// thread did in between (building the head, an earlier part of the body), never short by the
/// server's answer.
struct SendStamp {
    /// A callback this close after the one before reports the same write (libcurl tells of a
    /// head and a small body written at once in two callbacks in a row), or one whose stamp, if
    /// kept, is late by at most this much: it takes that callback's verdict, without reading
    /// the thread's preemptions again. Between two readings, so, the count may also take in
    /// time already judged, which can only drop a stamp, never keep a late one.
    static let sameWriteWithin: UInt64 = 50_000

    /// The moment the request's last bytes are known to have gone out by (nanoseconds, on the
    /// transport's uptime clock); the moment it was ready to go until a stamp is kept.
    private(set) var lastSentAt: UInt64 = 0
    private var lastSeenAt: UInt64 = 0
    private var lastSeenLate = false
    private var preemptions = 0

    /// The request is about to be written, at `now`, the thread having lost its core
    /// `preemptions` times by a reading taken at or before `now` (`TurnPreemptions`: earlier in
    /// the same turn of the loop, so a switch in between can only drop a stamp).
    mutating func start(at now: UInt64, preemptions: Int) {
        lastSentAt = now
        lastSeenAt = now
        lastSeenLate = false
        self.preemptions = preemptions
    }

    /// A write's callback, at `now`; `preemptions` reads the thread's count, and is called only
    /// for a callback more than `sameWriteWithin` after the one before.
    mutating func seen(at now: UInt64, preemptions read: () -> Int) {
        if now > lastSeenAt &+ Self.sameWriteWithin {
            let count = read()
            lastSeenLate = count != preemptions
            preemptions = count
        }
        lastSeenAt = now
        if !lastSeenLate { lastSentAt = now }
    }
}
