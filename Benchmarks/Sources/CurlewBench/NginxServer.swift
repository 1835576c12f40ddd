import BenchMeasurement
import Foundation

/// nginx started with its own generated config on 127.0.0.1: one worker, keep-alive, a small JSON
/// body on /get and a 1 MiB body on /big. Stopped with `stop()`.
final class NginxServer {
    let port: Int
    private let directory: String
    private let process: Process

    static let smallBody = #"{"ok":true,"server":"nginx","items":[1,2,3],"message":"hello from the benchmark"}"#
    static let bigSize = 1 << 20
    /// The download scenario's file on /huge: sparse, so it costs no disk.
    static let hugeSize = 1 << 30

    init() throws {
        directory = NSTemporaryDirectory() + "curlew-bench-nginx-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        chmod(directory, 0o755)
        let big = Data((0..<Self.bigSize).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try big.write(to: URL(fileURLWithPath: directory + "/big.bin"))
        chmod(directory + "/big.bin", 0o644)
        guard FileManager.default.createFile(atPath: directory + "/huge.bin", contents: nil), truncate(directory + "/huge.bin", off_t(Self.hugeSize)) == 0 else {
            throw BenchError("could not create the sparse download file")
        }
        chmod(directory + "/huge.bin", 0o644)
        port = try Self.freePort()
        let config = """
        \(getuid() == 0 ? "user root;" : "")
        worker_processes 1;
        daemon off;
        pid \(directory)/nginx.pid;
        error_log \(directory)/logs/error.log warn;
        events { worker_connections 4096; }
        http {
            access_log off;
            keepalive_timeout 120s;
            keepalive_requests 10000000;
            client_body_temp_path \(directory)/body;
            proxy_temp_path \(directory)/proxy;
            fastcgi_temp_path \(directory)/fastcgi;
            uwsgi_temp_path \(directory)/uwsgi;
            scgi_temp_path \(directory)/scgi;
            server {
                listen 127.0.0.1:\(port) backlog=4096;
                location = /get { default_type application/json; return 200 '\(Self.smallBody)'; }
                location = /big { default_type application/octet-stream; alias \(directory)/big.bin; }
                location = /huge { default_type application/octet-stream; alias \(directory)/huge.bin; }
            }
        }
        """
        try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-p", directory, "-c", directory + "/nginx.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try waitUntilListening()
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// CPU time nginx has used so far, its master and worker with every thread of each, in
    /// nanoseconds: the first field of `/proc/PID/task/TID/schedstat` (time on a CPU, to the
    /// nanosecond, where `/proc/PID/stat` counts 10 ms ticks). Nil when it cannot be read.
    func cpuNanoseconds() -> UInt64? {
        let master = process.processIdentifier
        var total: UInt64 = 0
        for pid in [master] + Self.children(of: master) {
            guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
            for task in tasks {
                guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                      let nanoseconds = text.split(separator: " ").first.flatMap({ UInt64($0) }) else { return nil }
                total += nanoseconds
            }
        }
        return total
    }

    /// The processes whose parent is `parent` (nginx's worker), from each process's `/proc/PID/stat`.
    private static func children(of parent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let afterName = stat.range(of: ") ", options: .backwards) else { return nil }
            // After the name: state, then the parent's pid.
            let fields = stat[afterName.upperBound...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent ? pid : nil
        }
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func waitUntilListening() throws {
        for _ in 0..<100 {
            if let result = try? ChildProcess.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", baseURL + "/get"]), result.output == "200" { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw BenchError("nginx did not start (see \(directory)/logs/error.log)")
    }

    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw BenchError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
