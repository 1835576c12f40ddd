import BenchMeasurement
import CCurl
import Foundation

/// The ceiling for any libcurl client: a multi loop on this thread that re-adds each easy handle
/// as soon as it finishes, discarding bodies. No observers, no allocation per request.
///
/// `keepingBodies` copies each body into memory kept per handle (grown on the first responses,
/// then reused, as Curlew's pooled body buffers are), as any client that hands the body to its
/// caller must copy it: the floor for such a client on large bodies.
enum BareCurlClient {
    private static let discard: curlew_data_callback = { _, size, count, context in
        context?.assumingMemoryBound(to: KeptBody.self).pointee.total += Int64(size * count)
        return size * count
    }

    private static let keep: curlew_data_callback = { data, size, count, context in
        guard let data, let body = context?.assumingMemoryBound(to: KeptBody.self) else { return 0 }
        body.pointee.append(UnsafeRawPointer(data), count: size * count)
        return size * count
    }

    /// One handle's body: the bytes of the current response, and the total over all of them.
    private struct KeptBody {
        var storage: UnsafeMutableRawPointer?
        var count = 0
        var capacity = 0
        var total: Int64 = 0

        mutating func append(_ bytes: UnsafeRawPointer, count length: Int) {
            guard length > 0 else { return }
            if count + length > capacity {
                capacity = max(capacity * 2, count + length)
                storage = realloc(storage, capacity)
            }
            (storage! + count).copyMemory(from: bytes, byteCount: length)
            count += length
            total += Int64(length)
        }
    }

    static func run(url: String, count: Int, concurrency: Int, keepingBodies: Bool = false) throws -> RunResult {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard let multi = curl_multi_init() else { throw BenchError("curl_multi_init failed") }
        _ = curlew_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, concurrency)
        let handles = min(concurrency, count)
        let bodies = UnsafeMutablePointer<KeptBody>.allocate(capacity: max(1, handles))
        bodies.initialize(repeating: KeptBody(), count: max(1, handles))
        var bodyOf: [UnsafeMutableRawPointer: UnsafeMutablePointer<KeptBody>] = [:]
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
        for index in 0..<handles {
            guard let easy = curl_easy_init() else { throw BenchError("curl_easy_init failed") }
            _ = curlew_easy_setopt_string(easy, CURLOPT_URL, url)
            _ = curlew_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, keepingBodies ? keep : discard)
            _ = curlew_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, bodies + index)
            bodyOf[easy] = bodies + index
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
                bodyOf[easy]?.pointee.count = 0
                curl_multi_remove_handle(multi, easy)
                if issued < count { add(easy) } else { curl_easy_cleanup(easy) }
            }
            if completed < count { curl_multi_poll(multi, nil, 0, 100, nil) }
        }
        let elapsed = seconds(ContinuousClock.now - started)
        curl_multi_cleanup(multi)
        let total = (0..<max(1, handles)).reduce(Int64(0)) { $0 + bodies[$1].total }
        for index in 0..<max(1, handles) { free(bodies[index].storage) }
        bodies.deallocate()
        return RunResult(latencies: latencies, errors: errors, seconds: elapsed, bytes: total)
    }
}
