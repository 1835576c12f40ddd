import Foundation

/// When and how often a failed request is sent again (globally in `NetworkConfig.retry`, or per
/// request). A cancellation is never retried; neither is a method that is not idempotent (POST,
/// PATCH, CONNECT) unless `retriesNonIdempotent` is set.
public struct RetryPolicy: Sendable, Equatable {
    /// How long to wait before the next attempt.
    public enum Backoff: Sendable, Equatable {
        case fixed(Duration)
        /// `initial * 2^(retry-1)`, capped at `maximum`, each delay scaled by a random factor in
        /// `1 - jitter ... 1` so that clients that failed together do not come back together.
        case exponential(initial: Duration, maximum: Duration, jitter: Double)
    }

    /// Retries after the first attempt; 2 means at most 3 attempts.
    public var maxRetries: Int
    public var backoff: Backoff
    public var retryableErrors: Set<RequestError.Kind>
    public var retryableStatuses: Set<Int>
    /// Wait as long as a retryable response's `Retry-After` says (seconds or an HTTP date), up to `maxRetryAfter`.
    public var honorsRetryAfter: Bool
    /// A `Retry-After` longer than this stops the retries instead of waiting.
    public var maxRetryAfter: Duration
    public var retriesNonIdempotent: Bool

    public static let defaultRetryableErrors: Set<RequestError.Kind> = [
        .couldNotConnect, .proxyUnreachable, .connectTimeout, .totalTimeout, .connectionReset, .emptyResponse, .incompleteResponse,
    ]
    public static let defaultRetryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    public init(maxRetries: Int = 2, backoff: Backoff = .exponential(initial: .milliseconds(200), maximum: .seconds(5), jitter: 0.5),
                retryableErrors: Set<RequestError.Kind> = RetryPolicy.defaultRetryableErrors,
                retryableStatuses: Set<Int> = RetryPolicy.defaultRetryableStatuses,
                honorsRetryAfter: Bool = true, maxRetryAfter: Duration = .seconds(60), retriesNonIdempotent: Bool = false) {
        self.maxRetries = max(0, maxRetries)
        self.backoff = backoff
        self.retryableErrors = retryableErrors
        self.retryableStatuses = retryableStatuses
        self.honorsRetryAfter = honorsRetryAfter
        self.maxRetryAfter = maxRetryAfter
        self.retriesNonIdempotent = retriesNonIdempotent
    }

    /// What to do after attempt `attempt` (from 1) ended with `status` and `error`.
    func decision(afterAttempt attempt: Int, method: HTTPMethod, status: Int?, error: RequestError?, retryAfter: String?,
                  now: Date = Date(), random: Double = Double.random(in: 0...1)) -> RetryDecision {
        if let error, error.kind == .cancelled { return .stop("cancelled, never retried") }
        let retryableError = error.map { retryableErrors.contains($0.kind) } ?? false
        let retryableStatus = status.map { retryableStatuses.contains($0) } ?? false
        guard error != nil || retryableStatus else { return .stop("succeeded") }
        guard retryableError || retryableStatus else {
            return .stop(status.map { "HTTP \($0) is not retryable" } ?? "\(error!.kind.rawValue) is not retryable")
        }
        guard method.isIdempotent || retriesNonIdempotent else {
            return .stop("\(method.rawValue) is not idempotent; not retried")
        }
        guard attempt <= maxRetries else { return .stop("gave up after \(attempt) attempts") }
        if honorsRetryAfter, let retryAfter, let wait = Self.retryAfterDelay(retryAfter, now: now) {
            guard wait <= maxRetryAfter else { return .stop("Retry-After \(retryAfter) is longer than \(maxRetryAfter)") }
            return .retry(after: wait, reason: "server sent Retry-After: \(retryAfter)")
        }
        let reason = retryableStatus ? "HTTP \(status!) is retryable" : "\(error!.kind.rawValue) is retryable"
        return .retry(after: delay(beforeRetry: attempt, random: random), reason: reason)
    }

    /// The backoff before retry number `retry` (from 1).
    public func delay(beforeRetry retry: Int, random: Double) -> Duration {
        switch backoff {
        case .fixed(let delay):
            return delay
        case .exponential(let initial, let maximum, let jitter):
            let exponent = Double(min(retry - 1, 30))
            // Capped at a day, so no maximum a caller sets can overflow the conversion below.
            let full = min(initial.seconds * pow(2, exponent), maximum.seconds, 86_400)
            let factor = 1 - min(max(jitter, 0), 1) * random
            return .nanoseconds(Int64(full * factor * 1e9))
        }
    }

    /// `Retry-After` as seconds or an HTTP date; nil when it is neither. Digits past what an
    /// integer holds are a wait past any limit, not a value to ignore
    /// (found by a new user's trial: `9223372036854775808` retried at once).
    public static func retryAfterDelay(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text), seconds >= 0 { return .seconds(seconds) }
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) { return .seconds(Int64.max) }
        guard let date = HTTPDate.parse(text) else { return nil }
        return .milliseconds(Int64(max(0, date.timeIntervalSince(now)) * 1000))
    }
}

/// The outcome of a retry check.
enum RetryDecision: Equatable {
    case retry(after: Duration, reason: String)
    case stop(String)
}

