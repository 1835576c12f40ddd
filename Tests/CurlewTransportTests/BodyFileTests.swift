@testable import CurlewTransport
import Foundation
import Testing

@Suite("Body files")
struct BodyFileTests {
    private func scratch() -> String {
        NSTemporaryDirectory() + "curlew-bodyfile-\(UUID().uuidString)"
    }

    private func write(_ text: String, to file: BodyFile) {
        Data(text.utf8).withUnsafeBytes { #expect(file.write($0)) }
    }

    @Test("opening for a download keeps what is asked of an existing file and cuts the rest; a fresh file is written from its start without being cut first")
    func keeping() throws {
        let path = scratch()
        defer { unlink(path) }
        let fresh = try BodyFile.open(path: path, keeping: 0).get()
        write("0123456789", to: fresh)
        fresh.close()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "0123456789")

        let resumed = try BodyFile.open(path: path, keeping: 4).get()
        #expect(resumed.size == 4)
        write("ab", to: resumed)
        resumed.close()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "0123ab")

        let beyond = try BodyFile.open(path: path, keeping: 100).get()
        #expect(beyond.size == 6, "nothing past the file's end is kept")
        write("!", to: beyond)
        beyond.close()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "0123ab!")

        let restarted = try BodyFile.open(path: path, keeping: 0).get()
        #expect(restarted.size == 0)
        write("new", to: restarted)
        restarted.close()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
    }
}
