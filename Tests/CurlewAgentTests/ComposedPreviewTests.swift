import CurlewAgent
import Foundation
import Testing

@Suite("what a request would put on the wire, composed without sending")
struct ComposedPreviewTests {
    @Test("composing a download that would start over leaves its partial file alone (the interface composes on every frame)")
    func previewKeepsPartialFiles() throws {
        let destination = NSTemporaryDirectory() + "curlew-preview-\(UUID().uuidString).bin"
        let partial = destination + ".curlew-partial"
        try Data("half".utf8).write(to: URL(fileURLWithPath: partial))
        defer { unlink(partial) }
        var request = Request(.get, "/big")
        request.download = Download(to: destination, resumable: false)
        let composed = try NetworkConfig(baseURL: "http://127.0.0.1:9").composed(request)
        #expect(composed.url == "http://127.0.0.1:9/big")
        #expect(FileManager.default.fileExists(atPath: partial))
    }
}
