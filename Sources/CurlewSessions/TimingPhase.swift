import CurlewAgent

extension TimingBreakdown {
    /// The phases the log tools report, in the order of an exchange; `redirects` is the time
    /// the hops before the final one took (none without redirects).
    public static let phaseNames = ["queued", "redirects", "dns", "connect", "tls", "send", "wait", "receive", "total"]

    /// A phase by its name in `phaseNames`, in microseconds; nil when it did not happen.
    public func phase(named name: String) -> Int64? {
        switch name {
        case "queued": queued
        case "redirects": redirect
        case "dns": dns
        case "connect": connect
        case "tls": tls
        case "send": send
        case "wait": wait
        case "receive": receive
        case "total": total
        default: nil
        }
    }
}

extension DebugMessage {
    /// The phase named `name` of this exchange's timings; nil when it did not happen, as the
    /// waterfall has it (`ExchangeReach`).
    public func phase(named name: String) -> Int64? {
        reach.unreachedReason(name) == nil ? timings?.phase(named: name) : nil
    }
}
