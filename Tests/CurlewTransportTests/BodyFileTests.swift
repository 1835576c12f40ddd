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

        // Kept, then written after what was kept: resumed, asked past the end, restarted.
        for (keeping, size, written, content) in [(Int64(4), Int64(4), "ab", "0123ab"), (100, 6, "!", "0123ab!"), (0, 0, "new", "new")] {
            let file = try BodyFile.open(path: path, keeping: keeping).get()
            #expect(file.size == size, "keeping \(keeping)")
            write(written, to: file)
            file.close()
            #expect(try String(contentsOfFile: path, encoding: .utf8) == content, "keeping \(keeping)")
        }
    }
}
