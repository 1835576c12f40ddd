import CurlewAgent
import CurlewTestSupport
@testable import CurlewTUI
import Foundation
import Testing

/// What a user types or pastes is input: a paste is text, never commands, and a value that does
/// not fit its field is named while it is typed.
@Suite("Keys and pastes as input")
struct InputSafetyTests {
    private func model() -> AppModel {
        AppModel(environment: AppEnvironment(
            agent: Agent(config: NetworkConfig(baseURL: "http://127.0.0.1:9")), name: "test", sessionLogPath: nil, sessionsDirectory: NSTemporaryDirectory() + "none-" + UUID().uuidString,
            composeItems: [.request(RequestDraft(Request(.post, "/post", name: "post"), baseURL: "http://127.0.0.1:9"))],
            timeZone: TimeZone(identifier: "UTC")!, processEnvironment: [:]
        ))
    }

    @Test("a paste outside a field is ignored, however many command keys it holds")
    func pasteIsNotCommands() {
        let model = model()
        model.handle(.paste("s2s3q{\"s\": 1}"))
        #expect(model.live.rows.isEmpty)
        #expect(model.pane == .compose)
        #expect(!model.shouldQuit)
        #expect(model.message.hasPrefix("paste ignored"))
    }

    @Test("a multi-line paste into the body keeps its newlines and sends nothing")
    func multiLinePasteIntoBody() {
        let model = model()
        model.compose.focus = .editor
        model.compose.editing = (.body, LineEditor())
        model.handle(.paste("{\n  \"s\": \"send\"\n}"))
        model.handle(.enter)
        #expect(model.compose.draft.body == "{\n  \"s\": \"send\"\n}")
        #expect(model.live.rows.isEmpty)
    }

    @Test("a method that is not a token, and a timeout of inf, are refused with the field's name")
    func fieldValidation() {
        var compose = model().compose
        #expect(compose.commit("GET /x HTTP/1.1", to: .method)?.contains("not an HTTP token") == true)
        #expect(compose.commit("inf", to: .timeout)?.hasPrefix("timeout ") == true)
        #expect(compose.commit("nan", to: .timeout) != nil)
        #expect(compose.commit("2.5", to: .timeout) == nil)
        #expect(compose.draft.timeoutSeconds == 2.5)
        #expect(compose.commit("purge", to: .method) == nil)
        #expect(compose.draft.method == "PURGE")
    }

    @Test("errors show while the user types: the URL in Compose, the filter with a caret")
    func errorsWhileTyping() {
        let model = model()
        let screen = VirtualScreen(rows: 24, columns: 100)
        model.compose.focus = .editor
        model.compose.editing = (.url, LineEditor("ftp://x"))
        screen.present(model.render(rows: 24, columns: 100))
        #expect(screen.text.contains("must start with http:// or https://"))
        model.handle(.escape)

        model.prompt = .filter(LineEditor("~c 9xx"))
        screen.present(model.render(rows: 24, columns: 100))
        let lines = screen.text.split(separator: "\n", omittingEmptySubsequences: false)
        let caretLine = try? #require(lines.first { $0.contains("^ status must be") })
        #expect(caretLine?.firstIndex(of: "^").map { caretLine!.distance(from: caretLine!.startIndex, to: $0) } == 8 + 3)
    }
}
