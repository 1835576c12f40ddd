import CurlewAgent
import Foundation
import Testing

@Suite("curlew demo")
struct DemoCommandTests {
    private func sessionsDirectory() -> String {
        NSTemporaryDirectory() + "curlew-demo-" + UUID().uuidString
    }

    @Test("demo batch prints every member's result and the verdict, and logs all ten where --sessions says")
    func batch() async throws {
        let directory = sessionsDirectory()
        let result = try await CurlewProcess.run(["demo", "batch", "--sessions", directory])
        #expect(result.output.contains("Session log: \(directory)/"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == 1)
        #expect(result.status == 0)
        // Members numbered from 1, as the interface and a stopped member's reason number them.
        for index in 1...10 { #expect(result.output.contains("#\(index) item \(index)")) }
        #expect(result.output.contains("✗ unacceptableStatus: server answered HTTP/1.1 500"))
        #expect(result.output.contains("■ batch 'ten requests' succeeded"))
        #expect(result.output.contains("failed: #7"))
        #expect(result.output.contains("(10 entries)"))
    }

    @Test("demo tour shows every request answered and exits 0 (it exits 1 naming those the server did not answer)")
    func tour() async throws {
        let result = try await CurlewProcess.run(["demo", "tour", "--sessions", sessionsDirectory()])
        #expect(result.status == 0, "\(result.output)")
        for name in ["a simple GET", "a JSON POST", "two redirects", "an unacceptable status", "binary bytes"] {
            #expect(result.output.contains("── \(name) "), "\(name)")
        }
        #expect(result.output.contains("418"))
        #expect(!result.error.contains("got no answer"), "\(result.error)")
    }

    @Test("the demo works behind a proxy the environment names: its own loopback server is reached directly (found by a new user's trial)")
    func behindProxy() async throws {
        let result = try await CurlewProcess.run(["demo", "chain", "--sessions", sessionsDirectory()],
                                                 environment: ["http_proxy": "http://127.0.0.1:1", "https_proxy": "http://127.0.0.1:1"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("■ chain 'login -> profile' succeeded"), "\(result.output)")
    }

    @Test("demo batch --policy all cancels the rest after the failure and exits non-zero")
    func batchAll() async throws {
        let result = try await CurlewProcess.run(["demo", "batch", "--policy", "all", "--max-concurrency", "3", "--sessions", sessionsDirectory()])
        #expect(result.status == 1)
        #expect(result.output.contains("⊘ cancelled"))
        #expect(result.output.contains("■ batch 'ten requests' failed"))
    }

    @Test("demo chain logs in, captures the token and uses it; the token is printed hidden (found by review: it was shown in clear)")
    func chain() async throws {
        let result = try await CurlewProcess.run(["demo", "chain", "--sessions", sessionsDirectory()])
        #expect(result.status == 0)
        #expect(result.output.contains("#1 log in"))
        #expect(result.output.contains("captured {{token}} = \(RedactionPolicy.marker) from #1"))
        #expect(!result.output.contains("= demo-"))
        let profile = result.output.split(separator: "\n").first { $0.contains("#2 profile") }
        #expect(profile?.contains("✓ 200") == true)
        #expect(result.output.contains("■ chain 'login -> profile' succeeded"))
    }
}
