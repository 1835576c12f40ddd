import CurlewLocking

/// The answer a coalesced request shares with the one it joined: the response and any transport
/// failure, before the leader's own checks. Each follower judges it by its own acceptable
/// statuses, serializer and validation.
struct SharedOutcome: Sendable {
    var leaderID: UInt64
    var response: Response?
    var transportError: RequestError?
}

/// Requests in flight by fingerprint, and the requests waiting to share their answer.
final class DuplicateRegistry: Sendable {
    enum Admission {
        /// Nothing identical is in flight: this request goes to the network.
        case lead
        case rejected(leaderID: UInt64)
        /// Wait for the leader's outcome; nil means this follower was withdrawn.
        case follow(leaderID: UInt64, OneShot<SharedOutcome?>)
    }

    private struct Flight {
        var leaderID: UInt64
        var followers: [UInt64: OneShot<SharedOutcome?>] = [:]
    }

    private let flights = Locked<[String: Flight]>([:])

    func admit(_ fingerprint: String, id: UInt64, policy: DuplicatePolicy) -> Admission {
        flights.withLock { flights in
            guard let flight = flights[fingerprint] else {
                flights[fingerprint] = Flight(leaderID: id)
                return .lead
            }
            switch policy {
            case .allow:
                return .lead
            case .reject:
                return .rejected(leaderID: flight.leaderID)
            case .coalesce:
                let slot = OneShot<SharedOutcome?>()
                flights[fingerprint]?.followers[id] = slot
                return .follow(leaderID: flight.leaderID, slot)
            }
        }
    }

    /// The leader finished: every follower gets its outcome, and the fingerprint is free again.
    func finish(_ fingerprint: String, leaderID: UInt64, outcome: SharedOutcome) {
        let followers = flights.withLock { flights -> [OneShot<SharedOutcome?>] in
            guard flights[fingerprint]?.leaderID == leaderID else { return [] }
            return flights.removeValue(forKey: fingerprint).map { Array($0.followers.values) } ?? []
        }
        for follower in followers { follower.fulfil(outcome) }
    }

    /// A follower was cancelled: it stops waiting; the leader goes on.
    func withdraw(_ fingerprint: String, followerID: UInt64) {
        let slot = flights.withLock { $0[fingerprint]?.followers.removeValue(forKey: followerID) }
        slot?.fulfil(nil)
    }

    /// The leader's caller cancelled. With followers waiting, returns true: the leader must go on
    /// for them. Without, the fingerprint is freed at once, so no request joins a flight that is
    /// about to be aborted, and returns false.
    func leaderCancelled(_ fingerprint: String, leaderID: UInt64) -> Bool {
        flights.withLock { flights in
            guard let flight = flights[fingerprint], flight.leaderID == leaderID else { return false }
            guard flight.followers.isEmpty else { return true }
            flights.removeValue(forKey: fingerprint)
            return false
        }
    }
}
