import CurlewTransport

/// A cookie as the agent's jar holds it: domain, path, expiry, flags, name and value.
public typealias Cookie = CurlewTransport.Cookie

/// The agent's cookie jar: off unless enabled. On, cookies that responses set are sent on later
/// requests to the same site (libcurl's cookie engine, shared by all of the agent's requests).
public struct CookieSettings: Sendable, Equatable {
    public var enabled: Bool
    /// A Netscape-format jar file read when the agent starts (when it exists and reads as a jar;
    /// `Agent.loadCookies()` reports why one does not) and written by `Agent.saveCookies()`,
    /// owner-only.
    public var jarFile: String?

    public init(enabled: Bool = false, jarFile: String? = nil) {
        self.enabled = enabled
        self.jarFile = jarFile
    }
}
