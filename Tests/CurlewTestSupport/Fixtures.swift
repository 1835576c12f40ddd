import CurlewAgent
import Foundation

/// Deterministic debug messages for view and filter tests (fixed ids, times and timings).
public enum Fixtures {
    public static let epoch = Date(timeIntervalSince1970: 1_790_000_000)

    public static func message(
        id: UInt64 = 1, name: String? = nil, method: String = "GET", url: String = "http://api.example.test/users/7",
        status: Int? = 200, requestHeaders: [HeaderField] = [], requestBody: String? = nil, responseBody: String = "{}",
        contentType: String = "application/json", error: RequestError? = nil, elapsedMicros: Int64 = 1_000,
        startedAt: Date? = nil, reused: Bool = false, groupID: UInt64? = nil, step: Int? = nil, pipeline: PipelineRecord? = nil
    ) -> DebugMessage {
        let queued: Int64 = 50
        let dns: Int64? = reused ? nil : 120
        let connect: Int64? = reused ? nil : 180
        let total = max(elapsedMicros - queued, 500)
        let receive = total / 10
        let send = total / 20
        let wait = total - receive - send - (dns ?? 0) - (connect ?? 0)
        let requestBodySnapshot = requestBody.map { BodySnapshot(data: Data($0.utf8), contentType: "application/json", limit: 1 << 20) }
        let path = URLComponents(string: url)?.percentEncodedPath ?? "/"
        let state: RequestState = error?.kind == .cancelled ? .cancelled : (error == nil ? .succeeded : .failed)
        return DebugMessage(
            requestID: id, name: name, groupID: groupID, step: step, state: state,
            startedAt: startedAt ?? epoch.addingTimeInterval(Double(id)),
            original: ComposedRequest(method: method, url: url, headers: requestHeaders + [HeaderField(name: "User-Agent", value: "Curlew/0.1.0")],
                                      params: .object([]), body: requestBodySnapshot, timeoutMilliseconds: 15_000),
            sent: WireRequest(head: "\(method) \(path) HTTP/1.1\r\nHost: api.example.test\r\n"
                + requestHeaders.map { "\($0.name): \($0.value)\r\n" }.joined() + "User-Agent: Curlew/0.1.0\r\n\r\n", body: requestBodySnapshot),
            response: status.map { ResponseSnapshot(statusCode: $0, statusLine: "HTTP/1.1 \($0) \($0 < 400 ? "OK" : "Error")", httpVersion: "1.1",
                                                    headers: [HeaderField(name: "Content-Type", value: contentType)],
                                                    body: BodySnapshot(data: Data(responseBody.utf8), contentType: contentType, limit: 1 << 20)) },
            error: error,
            timings: TimingBreakdown(queued: queued, dns: dns, connect: connect, tls: nil, send: send, wait: max(0, wait), receive: receive, redirect: nil, total: total),
            connection: ConnectionInfo(httpVersion: status == nil ? "" : "1.1", remoteIP: "127.0.0.1", remotePort: 8080, localIP: "127.0.0.1",
                                       localPort: 50_000 + Int(id), reused: reused, newConnections: reused ? 0 : 1,
                                       effectiveURL: url, bytesSent: 120, bytesReceived: Int64(responseBody.utf8.count + 100)),
            callbackQueue: "curlew.callbacks", pipeline: pipeline
        )
    }

    /// Writes a session log of `count` fixture messages (IDs 1 to `count`, URLs
    /// `http://h/entryN`) at `path`; returns its lines, the header first, to damage and write
    /// back with `writeLines`.
    public static func writeEntryLog(count: Int, to path: String) throws -> [String] {
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        for id in 1...count { logger.requestDidProduce(message(id: UInt64(id), url: "http://h/entry\(id)")) }
        try logger.close()
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// Writes `lines` to `path`, each ended by a line feed.
    public static func writeLines(_ lines: [String], to path: String) throws {
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
    }
}
