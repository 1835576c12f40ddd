import CCurl
import Foundation

/// The ceiling for any libcurl client: a multi loop on this thread that re-adds each easy handle
/// as soon as it finishes, discarding bodies. No observers, no allocation per request.
enum BareCurlClient {
    private static let discard: curlew_data_callback = { _, size, count, context in
        context?.assumingMemoryBound(to: Int64.self).pointee += Int64(size * count)
        return size * count
    }

    static func run(url: String, count: Int, concurrency: Int) throws -> RunResult {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard let multi = curl_multi_init() else { throw BenchError("curl_multi_init failed") }
        _ = curlew_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, concurrency)
        let bytes = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
        bytes.pointee = 0
        var starts: [UnsafeMutableRawPointer: ContinuousClock.Instant] = [:]
        var latencies: [Double] = []
        latencies.reserveCapacity(count)
        var errors = 0
        var issued = 0
        func add(_ easy: UnsafeMutableRawPointer) {
            starts[easy] = .now
            curl_multi_add_handle(multi, easy)
            issued += 1
        }
        for _ in 0..<min(concurrency, count) {
            guard let easy = curl_easy_init() else { throw BenchError("curl_easy_init failed") }
            _ = curlew_easy_setopt_string(easy, CURLOPT_URL, url)
            _ = curlew_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, discard)
            _ = curlew_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, bytes)
            _ = curlew_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
            add(easy)
        }
        let started = ContinuousClock.now
        var running: Int32 = 0
        var completed = 0
        while completed < count {
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                if message.pointee.data.result == CURLE_OK, let start = starts[easy] {
                    latencies.append(seconds(ContinuousClock.now - start) * 1000)
                } else {
                    errors += 1
                }
                completed += 1
                curl_multi_remove_handle(multi, easy)
                if issued < count { add(easy) } else { curl_easy_cleanup(easy) }
            }
            if completed < count { curl_multi_poll(multi, nil, 0, 100, nil) }
        }
        let elapsed = seconds(ContinuousClock.now - started)
        curl_multi_cleanup(multi)
        defer { bytes.deallocate() }
        return RunResult(latencies: latencies, errors: errors, seconds: elapsed, bytes: bytes.pointee)
    }
}
