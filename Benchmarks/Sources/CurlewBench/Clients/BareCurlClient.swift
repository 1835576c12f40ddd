import BenchMeasurement
import CCurl
import CurlewAgent
import Foundation

/// The ceiling for any libcurl client sending Curlew's request: a multi loop on this thread that
/// re-adds each easy handle as soon as it finishes, discarding bodies. No observers, no
/// allocation per request. It sends the request Curlew's agent sends, byte for byte (libcurl's
/// head and Curlew's `User-Agent`, in `CURLOPT_HTTPHEADER`, the cheapest way libcurl takes a
/// header), and gives libcurl its proxy settings as the agent does (none, set once, so libcurl
/// does not search the environment for them on every transfer): the ratios measure what the
/// agent adds to the same exchange, with libcurl doing the least it can for it.
///
/// `.bodies` copies each body into memory kept per handle (grown on the first responses,
/// then reused, as Curlew's pooled body buffers are), as any client that hands the body to its
/// caller must copy it: the floor for such a client on large bodies.
///
/// `.whatTheLogRecords` also keeps what only libcurl can give of an exchange and a session log records
/// of it: the response's head, the request's head as sent (verbose mode on from just before the
/// request goes out until its head has, as the agent does) and the timings and connection facts.
/// It writes nothing: the floor, on libcurl's side, for any client that logs every exchange in full.
enum BareCurlClient {
    /// How much of each exchange the loop keeps.
    enum Keeping {
        case nothing
        case bodies
        case whatTheLogRecords
    }

    private static let discard: curlew_data_callback = { _, size, count, context in
        context?.assumingMemoryBound(to: KeptBody.self).pointee.total += Int64(size * count)
        return size * count
    }

    private static let keep: curlew_data_callback = { data, size, count, context in
        guard let data, let body = context?.assumingMemoryBound(to: KeptBody.self) else { return 0 }
        body.pointee.append(UnsafeRawPointer(data), count: size * count)
        return size * count
    }

    private static let keepHeaderLine: curlew_data_callback = { data, size, count, context in
        guard let data, let capture = context?.assumingMemoryBound(to: Capture.self) else { return 0 }
        capture.pointee.responseHead.append(UnsafeRawPointer(data), count: size * count)
        return size * count
    }

    private static let verboseWhileSending: curlew_prereq_callback = { context, _, _, _, _ in
        if let capture = context?.assumingMemoryBound(to: Capture.self) {
            _ = curlew_easy_setopt_long(capture.pointee.easy, CURLOPT_VERBOSE, 1)
        }
        return Int32(CURL_PREREQFUNC_OK)
    }

    private static let keepSentHead: curlew_debug_callback = { easy, type, data, size, context in
        guard type == CURLINFO_HEADER_OUT, let data, let capture = context?.assumingMemoryBound(to: Capture.self) else { return 0 }
        capture.pointee.requestHead.append(UnsafeRawPointer(data), count: size)
        // A bodyless request's head ends with an empty line: nothing more goes out.
        if size >= 4, UnsafeRawPointer(data).loadUnaligned(fromByteOffset: size - 4, as: UInt32.self) == UInt32(littleEndian: 0x0A0D_0A0D) {
            _ = curlew_easy_setopt_long(easy, CURLOPT_VERBOSE, 0)
        }
        return 0
    }

    /// What the capturing loop keeps of one handle's exchange besides the body.
    private struct Capture {
        var easy: UnsafeMutableRawPointer?
        var responseHead = KeptBody()
        var requestHead = KeptBody()
        var timings = [curl_off_t](repeating: 0, count: 6)
        var status = 0
        var httpVersion = 0
        var remotePort = 0

        /// The timings a log records, read after each exchange.
        static let timingInfos = [CURLINFO_NAMELOOKUP_TIME_T, CURLINFO_CONNECT_TIME_T, CURLINFO_APPCONNECT_TIME_T,
                                  CURLINFO_PRETRANSFER_TIME_T, CURLINFO_STARTTRANSFER_TIME_T, CURLINFO_TOTAL_TIME_T]

        /// Reads what a log records of the finished exchange and empties the heads for the next.
        mutating func readFacts() {
            for index in Self.timingInfos.indices { _ = curlew_easy_getinfo_off_t(easy, Self.timingInfos[index], &timings[index]) }
            _ = curlew_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            _ = curlew_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &httpVersion)
            _ = curlew_easy_getinfo_long(easy, CURLINFO_PRIMARY_PORT, &remotePort)
            var address: UnsafeMutablePointer<CChar>?
            _ = curlew_easy_getinfo_string(easy, CURLINFO_PRIMARY_IP, &address)
            responseHead.count = 0
            requestHead.count = 0
        }
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

    static func run(url: String, count: Int, concurrency: Int, keeping: Keeping = .nothing) throws -> RunResult {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard let multi = curl_multi_init() else { throw BenchError("curl_multi_init failed") }
        _ = curlew_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, concurrency)
        let handles = min(concurrency, count)
        let bodies = UnsafeMutablePointer<KeptBody>.allocate(capacity: max(1, handles))
        bodies.initialize(repeating: KeptBody(), count: max(1, handles))
        let captures = UnsafeMutablePointer<Capture>.allocate(capacity: max(1, handles))
        captures.initialize(repeating: Capture(), count: max(1, handles))
        // The request Curlew's agent sends, byte for byte: libcurl's head and Curlew's User-Agent.
        let headers = curl_slist_append(nil, "User-Agent: Curlew/\(CurlewVersion.current)")
        defer { curl_slist_free_all(headers) }
        var captureOf: [UnsafeMutableRawPointer: UnsafeMutablePointer<Capture>] = [:]
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
            _ = curlew_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headers)
            _ = curlew_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, keeping == .nothing ? discard : keep)
            _ = curlew_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, bodies + index)
            bodyOf[easy] = bodies + index
            if keeping == .whatTheLogRecords {
                let capture = captures + index
                capture.pointee.easy = easy
                captureOf[easy] = capture
                _ = curlew_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, keepHeaderLine)
                _ = curlew_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, capture)
                _ = curlew_easy_setopt_prereq_callback(easy, verboseWhileSending)
                _ = curlew_easy_setopt_pointer(easy, CURLOPT_PREREQDATA, capture)
                _ = curlew_easy_setopt_debug_callback(easy, keepSentHead)
                _ = curlew_easy_setopt_pointer(easy, CURLOPT_DEBUGDATA, capture)
            }
            _ = curlew_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
            // Without them libcurl reads the proxy variables from the environment for every transfer.
            _ = curlew_easy_setopt_string(easy, CURLOPT_PROXY, "")
            _ = curlew_easy_setopt_string(easy, CURLOPT_NOPROXY, "")
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
                captureOf[easy]?.pointee.readFacts()
                curl_multi_remove_handle(multi, easy)
                if issued < count { add(easy) } else { curl_easy_cleanup(easy) }
            }
            if completed < count { curl_multi_poll(multi, nil, 0, 100, nil) }
        }
        let elapsed = seconds(ContinuousClock.now - started)
        curl_multi_cleanup(multi)
        let total = (0..<max(1, handles)).reduce(Int64(0)) { $0 + bodies[$1].total }
        for index in 0..<max(1, handles) {
            free(bodies[index].storage)
            free(captures[index].responseHead.storage)
            free(captures[index].requestHead.storage)
        }
        bodies.deallocate()
        captures.deinitialize(count: max(1, handles))
        captures.deallocate()
        return RunResult(latencies: latencies, errors: errors, seconds: elapsed, bytes: total)
    }
}
