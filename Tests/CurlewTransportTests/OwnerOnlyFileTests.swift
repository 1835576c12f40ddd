import CurlewTransport
import Foundation
import Testing

@Suite("Owner-only files")
struct OwnerOnlyFileTests {
    private static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "curlew-owner-only-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    private static func type(of path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }

    @Test("a named pipe, a device or a directory at the path is refused and left as it was; a regular file is replaced, owner-only")
    func replacesOnlyRegularFiles() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pipe = directory + "/pipe"
        try #require(mkfifo(pipe, 0o644) == 0)
        #expect(throws: OwnerOnlyFileError.self) { try OwnerOnlyFile.write(Data("x".utf8), to: pipe) }
        #expect(Self.type(of: pipe) == S_IFIFO)
        #expect(throws: OwnerOnlyFileError.self) { try OwnerOnlyFile.write(Data("x".utf8), to: directory) }
        #expect(Self.type(of: directory) == S_IFDIR)
        // /dev/null is a character device on every Linux; it must stay one.
        #expect(throws: OwnerOnlyFileError.self) { try OwnerOnlyFile.write(Data("x".utf8), to: "/dev/null") }
        #expect(Self.type(of: "/dev/null") == S_IFCHR)
        // Nothing was left beside them.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["pipe"])

        let file = directory + "/report.har"
        try Data("old".utf8).write(to: URL(fileURLWithPath: file))
        chmod(file, 0o644)
        try OwnerOnlyFile.write(Data("new".utf8), to: file)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "new")
        var status = stat()
        #expect(stat(file, &status) == 0 && status.st_mode & 0o777 == 0o600)
    }

    @Test("a file made read-only is kept, for root too, and the reason says so; made writable again it is replaced")
    func keepsReadOnlyFiles() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/report.har"
        try Data("kept".utf8).write(to: URL(fileURLWithPath: file))
        chmod(file, 0o444)
        #expect(OwnerOnlyFile.replaceProblem(file) == "it is read-only (its mode says so); make it writable with chmod u+w")
        #expect(throws: OwnerOnlyFileError.self) { try OwnerOnlyFile.write(Data("new".utf8), to: file) }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "kept")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["report.har"])
        chmod(file, 0o644)
        try OwnerOnlyFile.write(Data("new".utf8), to: file)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "new")
    }
}
