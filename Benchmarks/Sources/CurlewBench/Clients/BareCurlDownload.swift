import CCurl
import Foundation

/// The ceiling for a download to a file: one easy handle writing each chunk straight to a file
/// descriptor, as plain as libcurl allows.
enum BareCurlDownload {
    private static let write: curlew_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let descriptor = context.assumingMemoryBound(to: Int32.self).pointee
        var offset = 0
        while offset < size * count {
            let written = Foundation.write(descriptor, data + offset, size * count - offset)
            guard written > 0 else { return 0 }
            offset += written
        }
        return size * count
    }

    static func run(url: String, path: String) throws -> [String: Double] {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard let easy = curl_easy_init() else { throw BenchError("curl_easy_init failed") }
        defer { curl_easy_cleanup(easy) }
        let descriptor = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        defer { descriptor.deallocate() }
        descriptor.pointee = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor.pointee >= 0 else { throw BenchError("cannot write \(path)") }
        defer { close(descriptor.pointee) }
        _ = curlew_easy_setopt_string(easy, CURLOPT_URL, url)
        _ = curlew_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, write)
        _ = curlew_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, descriptor)
        _ = curlew_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        let started = ContinuousClock.now
        let code = curl_easy_perform(easy)
        guard code == CURLE_OK else { throw BenchError("download failed: \(String(cString: curl_easy_strerror(code)))") }
        let elapsed = ContinuousClock.now - started
        return ["seconds": Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18]
    }
}
