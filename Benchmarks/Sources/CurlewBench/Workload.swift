/// One benchmark workload: `count` GETs of `path` with `concurrency` in flight.
struct Workload: Sendable {
    var name: String
    var path: String
    var count: Int
    var concurrency: Int
    /// How long wrk runs for this workload (it is time-based, not count-based).
    var wrkSeconds: Int
    var bodySize: Int

    var title: String { "\(count) GET \(path), concurrency \(concurrency)" }

    static func standard(smoke: Bool) -> [Workload] {
        [
            Workload(name: "small-c50", path: "/get", count: smoke ? 300 : 20_000, concurrency: 50, wrkSeconds: smoke ? 1 : 4, bodySize: NginxServer.smallBody.utf8.count),
            Workload(name: "small-c1", path: "/get", count: smoke ? 300 : 20_000, concurrency: 1, wrkSeconds: smoke ? 1 : 4, bodySize: NginxServer.smallBody.utf8.count),
            Workload(name: "big-c10", path: "/big", count: smoke ? 20 : 1_000, concurrency: 10, wrkSeconds: smoke ? 1 : 4, bodySize: NginxServer.bigSize),
        ]
    }
}

/// The clients compared, in table order. Curlew with observers is row 1, the reference.
enum ClientKind: String, CaseIterable, Sendable {
    case curlew
    case curlewNoObservers = "curlew-no-observers"
    case libcurlMulti = "libcurl-multi"
    case libcurlMultiKeepingBodies = "libcurl-multi-keeping-bodies"
    case libcurlMultiCapturing = "libcurl-multi-capturing"
    case asyncHTTPClient = "async-http-client"
    case urlSession = "urlsession"
    case curlParallel = "curl-parallel"
    case wrk

    var title: String {
        switch self {
        case .curlew: "1 Curlew (observers + log)"
        case .curlewNoObservers: "2 Curlew (no observers)"
        case .libcurlMulti: "3 bare libcurl multi loop"
        case .libcurlMultiKeepingBodies: "3b bare loop keeping bodies"
        case .libcurlMultiCapturing: "3c bare loop capturing what a log records"
        case .asyncHTTPClient: "4 AsyncHTTPClient"
        case .urlSession: "5 URLSession"
        case .curlParallel: "6 curl --parallel"
        case .wrk: "7 wrk (load generator)"
        }
    }
}
