import CurlewAgent
import CurlewLocking

/// The credentials each request of a run sent, by request id, as its session log record hides
/// them (`RedactionPolicy.credentialValues`: secret headers' values, cookies, a URL's password as
/// libcurl sends it), read from its debug message before its answer is judged.
final class SentCredentials: Sendable {
    private let policy: RedactionPolicy
    private let byRequest = Locked<[UInt64: [String]]>([:])

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
        let ids = message.answeredRequestIDs
        byRequest.withLock { byRequest in
            for id in ids {
                byRequest[id, default: []] += values.filter { !(byRequest[id]?.contains($0) ?? false) }
            }
        }
    }

    /// What the request `id` sent to hide; none for a request never sent.
    func values(sentBy id: UInt64?) -> [String] {
        guard let id else { return [] }
        return byRequest.withLock { $0[id] ?? [] }
    }
}

/// What a group's cases hide besides the workspace's secrets: each request's own credentials,
/// and the values the group's chains captured that a log hides.
struct CaseSecrets: Sendable {
    let credentials: SentCredentials
    let captured: [String]

    func values(for requestID: UInt64?) -> [String] {
        credentials.values(sentBy: requestID) + captured
    }
}
