import CurlewTestSupport
import Foundation
@testable import CurlewSessions
import Testing

/// The scanner's looks at a followed file, one step at a time: no indexing thread, so where a
/// rewrite falls between a look and a read is chosen, not raced.
@Suite("Following a log: the scanner's looks")
struct IndexScannerFollowingTests {
    private func scanner(following path: String) throws -> IndexScanner {
        let scanner = try IndexScanner(path: path, methods: InternedStrings(maxCount: 255, maxBytes: 1 << 16),
                                       urls: InternedStrings(maxCount: 1_000, maxBytes: 1 << 20), follows: true)
        while try !scanner.scan(entries: .max).finished {}
        return scanner
    }

    /// The log's first lines, then other entries: first bytes alike, the rest another run's.
    private func rewrite(_ path: String, keeping lines: [String], entries: Int) throws {
        let other = try Fixtures.writeEntryLog(count: entries, to: path + ".other").dropFirst()
        defer { try? FileManager.default.removeItem(atPath: path + ".other") }
        try Fixtures.writeLines(lines + other.map { $0.replacingOccurrences(of: "http://h/", with: "http://other/") }, to: path)
    }

    @Test("a scan of a file of header lines alone keeps no more of them than the index does (found by review: a scan held every one until the index trimmed them)")
    func headerLinesBounded() throws {
        let path = NSTemporaryDirectory() + "curlew-scan-headers-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let header = try #require(try Fixtures.writeEntryLog(count: 1, to: path).first)
        try Fixtures.writeLines(Array(repeating: header, count: IndexScanner.keptHeaders + 500), to: path)
        let scanner = try IndexScanner(path: path, methods: InternedStrings(maxCount: 255, maxBytes: 1 << 16),
                                       urls: InternedStrings(maxCount: 1_000, maxBytes: 1 << 20))
        var kept = 0
        var finished = false
        while !finished {
            let part = try scanner.scan(entries: .max)
            #expect(part.headers.count <= IndexScanner.keptHeaders)
            kept += part.headers.count
            finished = part.finished
        }
        #expect(kept == IndexScanner.keptHeaders)
    }

    @Test("a log cut and written again longer before the first look after the last read is caught by the last bytes read, though its first 512 bytes are alike (found by CI: it was read on as if it had grown)")
    func rewrittenBeforeTheLook() throws {
        let path = NSTemporaryDirectory() + "curlew-scan-look-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lines = try Fixtures.writeEntryLog(count: 4, to: path)
        let scanner = try scanner(following: path)
        #expect(lines.prefix(2).joined(separator: "\n").utf8.count >= 512, "the first 512 bytes stay alike")
        try rewrite(path, keeping: Array(lines.prefix(2)), entries: 12)
        #expect(scanner.followingEnded()?.reason == "it was truncated and written again")
    }

    @Test("a log cut and written again between a look and the read: the chunk read is refused, and the next look says why")
    func rewrittenBetweenLookAndRead() throws {
        let path = NSTemporaryDirectory() + "curlew-scan-read-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lines = try Fixtures.writeEntryLog(count: 4, to: path)
        let scanner = try scanner(following: path)
        #expect(scanner.followingEnded() == nil)
        try rewrite(path, keeping: Array(lines.prefix(2)), entries: 12)
        let part = try scanner.scan(entries: .max)
        #expect(part.block == nil && part.skippedCount == 0, "nothing of the other log is indexed")
        #expect(part.cutWhileReading && !part.finished, "not caught up: the indexer looks again at once, and the index is not complete meanwhile (found by review)")
        #expect(scanner.followingEnded()?.reason == "it was truncated and written again")
        let again = try scanner.scan(entries: .max)
        #expect(again.block == nil && again.cutWhileReading, "read again from where the log's bytes ended, and refused again")
    }

    @Test("a last line left unfinished is read again only once it has grown, then taken when whole (found by review: it was parsed again at every look)")
    func unfinishedLineReadOnceGrown() throws {
        let path = NSTemporaryDirectory() + "curlew-scan-unfinished-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lines = try Fixtures.writeEntryLog(count: 2, to: path)
        let scanner = try scanner(following: path)
        let entry = Array(lines[1].utf8)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(entry.prefix(entry.count / 2)))
        var part = try scanner.scan(entries: .max)
        #expect(part.finished && part.block == nil && scanner.unfinishedLine?.bytes == entry.count / 2)
        part = try scanner.scan(entries: .max)
        #expect(part.finished && part.block == nil && scanner.unfinishedLine?.bytes == entry.count / 2, "nothing new: the line is where it was")
        try handle.write(contentsOf: Data(entry.dropFirst(entry.count / 2)))
        part = try scanner.scan(entries: .max)
        #expect(part.block?.count == 1, "whole now, without its line break: taken")
    }

    @Test("a log only appended to, in pieces smaller and larger than the bytes compared, is never taken for one written again")
    func appendedIsNotRewritten() throws {
        let path = NSTemporaryDirectory() + "curlew-scan-grow-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lines = try Fixtures.writeEntryLog(count: 1, to: path)
        let scanner = try scanner(following: path)
        let entry = Array(lines[1].utf8) + [0x0A]
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        var (entries, phase) = (1, 0)
        for size in [1, 7, 300, 511, 512, 513, 2_000, entry.count * 3] {
            try handle.seekToEnd()
            try handle.write(contentsOf: Data((0..<size).map { entry[(phase + $0) % entry.count] }))
            phase = (phase + size) % entry.count
            #expect(scanner.followingEnded() == nil, "after \(size) bytes appended")
            var part = try scanner.scan(entries: .max)
            while !part.finished { entries += part.block?.count ?? 0; part = try scanner.scan(entries: .max) }
            entries += part.block?.count ?? 0
        }
        #expect(scanner.followingEnded() == nil)
        let appended = [1, 7, 300, 511, 512, 513, 2_000, entry.count * 3].reduce(0, +)
        #expect(entries == 1 + appended / entry.count, "every whole entry appended is indexed")
    }
}
