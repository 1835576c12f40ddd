import CurlewAgent
import Foundation

/// A realistic debug message for the logger and view-model scenarios: a small JSON GET.
enum SampleMessage {
    static func make(id: UInt64, status: Int = 200, method: String = "GET") -> DebugMessage {
        let body = Data(#"{"ok":true,"server":"nginx","items":[1,2,3],"message":"hello from the benchmark"}"#.utf8)
        let url = "http://127.0.0.1:8080/get?page=\(id % 100)"
        return DebugMessage(
            requestID: id, name: nil, state: status < 400 ? .succeeded : .failed, startedAt: Date(),
            original: ComposedRequest(method: method, url: url, headers: [HeaderField(name: "User-Agent", value: "Curlew/0.1.0")],
                                      params: .object([]), body: nil, timeoutMilliseconds: 15_000),
            sent: WireRequest(head: "\(method) /get?page=\(id % 100) HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: */*\r\nUser-Agent: Curlew/0.1.0\r\n\r\n", body: nil),
            response: ResponseSnapshot(statusCode: status, statusLine: "HTTP/1.1 \(status) OK", httpVersion: "1.1",
                                       headers: [HeaderField(name: "Content-Type", value: "application/json"), HeaderField(name: "Content-Length", value: "\(body.count)")],
                                       body: BodySnapshot(data: body, contentType: "application/json", limit: 1 << 20)),
            error: status < 400 ? nil : RequestError(.unacceptableStatus, "server answered HTTP/1.1 \(status)", code: status),
            timings: TimingBreakdown(queued: 20, dns: nil, connect: nil, tls: nil, send: 10, wait: 150, receive: 15, redirect: nil, total: 180),
            connection: ConnectionInfo(httpVersion: "1.1", remoteIP: "127.0.0.1", remotePort: 8080, localIP: "127.0.0.1", localPort: 40_000,
                                       reused: true, newConnections: 0, redirectCount: 0, effectiveURL: url, bytesSent: 90, bytesReceived: 250),
            callbackQueue: "curlew.callbacks"
        )
    }
}
