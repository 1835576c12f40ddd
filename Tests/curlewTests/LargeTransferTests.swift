import CurlewDemoServer
import CurlewTestSupport
import Foundation
import Testing

/// Whether 4 KiB stretches at `samples` evenly spread offsets (the last one at the very end) hold
/// the demo server's `/range/{size}` bytes.
private func holdsAlphabet(_ path: String, samples: Int, of size: Int64) throws -> Bool {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    for sample in 0...samples {
        let offset = min(size - 4096, size / Int64(samples) * Int64(sample))
        try handle.seek(toOffset: UInt64(offset))
        guard let chunk = try handle.read(upToCount: 4096), chunk.count == 4096 else { return false }
        for (index, byte) in chunk.enumerated() where byte != UInt8(ascii: "a") + UInt8((offset + Int64(index)) % 26) { return false }
    }
    return true
}

private func fileSize(_ path: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? -1
}

/// The gigabyte download and the 200 MiB upload. They keep both cores busy for seconds, so
/// `make test` runs them on their own, after the rest of the suite (which skips them).
@Suite("Large transfers with bounded memory")
struct LargeTransferTests {
    @Test("-T streams a 200 MiB file with the client's peak memory under 64 MiB")
    func largeUpload() async throws {
        let server = try await DemoServer.start(ownThread: true)
        let directory = NSTemporaryDirectory() + "curlew-large-\(uniqueTag())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/large.bin"
        #expect(FileManager.default.createFile(atPath: file, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.truncate(atOffset: 200 << 20)
        try handle.close()
        let tag = uniqueTag()
        let outcome = try await PeakMemoryRun.run(["send", "-T", file, "--timeout", "300", "\(server.baseURL)/upload?\(tag)"])
        #expect(outcome.status == 0)
        #expect(outcome.peakResidentKiB < 64 << 10, "peak RSS \(outcome.peakResidentKiB) KiB")
        let received = try #require(server.receivedRequests.first { $0.uri.contains(tag) })
        #expect(received.headers.first { $0.name.lowercased() == "content-length" }?.value == "\(200 << 20)")
        try await server.stop()
    }

    @Test("-o writes a 1 GiB download with the client's peak memory under 64 MiB, every sampled stretch in place")
    func largeDownload() async throws {
        let server = try await DemoServer.start(ownThread: true)
        let directory = NSTemporaryDirectory() + "curlew-large-\(uniqueTag())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let destination = directory + "/big.bin"
        let outcome = try await PeakMemoryRun.run(["send", "-o", destination, "--timeout", "600", "\(server.baseURL)/range/\(1 << 30)"])
        #expect(outcome.status == 0)
        #expect(outcome.peakResidentKiB < 64 << 10, "peak RSS \(outcome.peakResidentKiB) KiB")
        #expect(fileSize(destination) == 1 << 30)
        // Reading a whole GiB back would cost more than the download; sampled stretches across
        // the file (and its end) show every byte landed where it belongs.
        #expect(try holdsAlphabet(destination, samples: 64, of: 1 << 30))
        try await server.stop()
    }

}
