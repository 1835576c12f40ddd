import CurlewAgent
import CurlewLocking

/// The credentials each request of a run sent, by request id, as its session log record hides
/// them (`RedactionPolicy.credentialValues`: secret headers' values, cookies, a URL's password as
/// libcurl sends it), read from its debug message before its answer is judged.
final class SentCredentials: Sendable {
    /// What one request sent: values hidden anywhere, and those hidden where they stand alone
    /// (a short `Basic` password, `RedactionPolicy.standingAloneCredentials`).
    struct Sent: Sendable {
        var anywhere: [String] = []
        var standingAlone: [String] = []
    }

    private let policy: RedactionPolicy
    private let byRequest = Locked<[UInt64: Sent]>([:])

    init(policy: RedactionPolicy) {
        self.policy = policy
    }

    /// Keeps what `message`'s request sent to hide; a request's `debug` callback. What a retried
    /// request's later attempt sent (a new signature, a cookie its answer set) is kept under
    /// every attempt's id too (`DebugMessage.answeredRequestIDs`), so the request's first id,
    /// which its report asks with, hides it.
    @Sendable func record(_ message: DebugMessage) {
        let values = policy.credentialValues(in: message)
        guard !values.isEmpty else { return }
        let standingAlone = policy.standingAloneCredentials(in: message)
        let ids = message.answeredRequestIDs
        byRequest.withLock { byRequest in
            for id in ids {
                var sent = byRequest[id] ?? Sent()
                sent.anywhere += values.filter { !sent.anywhere.contains($0) }
                sent.standingAlone += standingAlone.filter { !sent.standingAlone.contains($0) }
                byRequest[id] = sent
            }
        }
    }

    /// What the request `id` sent to hide; none for a request never sent.
    func values(sentBy id: UInt64?) -> Sent {
        guard let id else { return Sent() }
        return byRequest.withLock { $0[id] ?? Sent() }
    }
}

/// What a group's cases hide besides the workspace's secrets: each request's own credentials,
/// and the values the group's chains captured that a log hides.
struct CaseSecrets: Sendable {
    let credentials: SentCredentials
    let captured: [String]

    func values(for requestID: UInt64?) -> SentCredentials.Sent {
        var sent = credentials.values(sentBy: requestID)
        sent.anywhere += captured
        return sent
    }
}
