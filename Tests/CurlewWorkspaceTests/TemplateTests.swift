import CurlewWorkspace
import Foundation
import Testing

@Suite("templates")
struct TemplateTests {
    let template = Template(
        variables: ["host": "api.example", "url": "https://{{host}}/v1", "user": "ann", "password": "pw", "loop": "{{loop}}"],
        deferred: ["token"],
        environment: { $0 == "API_TOKEN" ? "from-env" : nil },
        now: { Date(timeIntervalSince1970: 1_700_000_000) },
        random: { $0.lowerBound }
    )

    @Test("variables nest, captures wait for the chain, built-ins expand")
    func expands() throws {
        #expect(try template.expand("{{url}}/items") == "https://api.example/v1/items")
        #expect(try template.expand("Bearer {{token}}") == "Bearer {{token}}")
        #expect(try template.expand("{{$env.API_TOKEN}}") == "from-env")
        #expect(try template.expand("{{$timestamp}}") == "1700000000")
        #expect(try template.expand("{{$isoTimestamp}}") == "2023-11-14T22:13:20Z")
        #expect(try template.expand("{{$randomInt 5 9}}") == "5")
        #expect(try template.expand("{{$base64 {{user}}:{{password}}}}") == Data("ann:pw".utf8).base64EncodedString())
        #expect(try template.expand("{{$uuid}}").count == 36)
        #expect(try template.expand("{{ user }}") == "ann")
        #expect(try template.expand(#"\{{not a variable}} {{user}}"#) == "{{not a variable}} ann")
        // An escaped brace inside a built-in's argument is text, and does not leave it unclosed (found by review).
        #expect(try template.expand(#"{{$base64 a\{{b:{{password}}}}"#) == Data("a{{b:pw".utf8).base64EncodedString())
    }

    @Test("a chain's captured values are filled in as they are, never expanded again, and deferred names stay templates until the chain has them; a built-in encodes a captured value (found by a new user's trial: {{$base64 {{user}}:{{token}}}} encoded the text {{token}})")
    func capturedValues() throws {
        // Before the chain has it, a captured name is left as written; an escaped one is text.
        #expect(try template.expand(#"\{{token}} {{token}}"#) == "{{token}} {{token}}")
        var filling = template
        filling.deferred = []
        filling.variables["token"] = "{{user}} \\{{x"
        filling.captured = ["token"]
        filling.variables["header"] = "Bearer {{token}}"
        #expect(try filling.expand(#"\{{token}} {{token}}"#) == #"{{token}} {{user}} \{{x"#)
        #expect(try filling.expand("{{header}}") == #"Bearer {{user}} \{{x"#)
        #expect(try filling.expand("{{$base64 {{user}}:{{token}}}}") == Data(#"ann:{{user}} \{{x"#.utf8).base64EncodedString())
    }

    @Test("the names a text uses are those it fills in: inside a built-in's argument too, not an escaped one (found by review: a request whose only use of a captured name was \\{{token}} was taken as needing the chain, and {{$base64 {{user}}:{{password}}}} named only password)")
    func namesUsed() {
        #expect(Template.names(in: #"\{{token}} {{$base64 {{user}}:{{password}}}} {{ host }} {{user}} {{open"#) == ["user", "password", "host"])
        #expect(Template.names(in: #"a \{{token}} b"#).isEmpty)
    }

    @Test("built-ins nested by the thousand are read for names as deep as expansion reads them, in a few passes (found by review: one recursion and one copy of the rest per level)")
    func deeplyNestedBuiltins() throws {
        let depth = 30_000
        let text = String(repeating: "{{$base64 ", count: 2) + "{{user}} " + String(repeating: "{{$base64 ", count: depth) + "{{deep}}" + String(repeating: "}}", count: depth + 2)
        let start = ContinuousClock.now
        #expect(Template.names(in: text) == ["user"])
        #expect(ContinuousClock.now - start < .seconds(20))
        #expect(Template.names(in: "{{$base64 {{$base64 {{$base64 {{$base64 {{$base64 {{$base64 {{$base64 {{seventh}}}}}}}}}}}}}}}}") == ["seventh"])
        #expect(Template.names(in: "{{$base64 {{$base64 {{$base64 {{$base64 {{$base64 {{$base64 {{$base64 {{$base64 {{eighth}}}}}}}}}}}}}}}}}}").isEmpty)
        #expect(throws: Template.Failure.self) { try template.expand("{{$base64 {{$base64 {{$base64 {{$base64 {{$base64 {{$base64 {{$base64 {{$base64 {{user}}}}}}}}}}}}}}}}}}") }
    }

    @Test("a text of many templates is expanded and its names listed in time proportional to its length (a substring search read all the rest of the text for each)")
    func manyTemplates() throws {
        let text = String(repeating: "a {{user}} ", count: 200_000)
        let start = ContinuousClock.now
        #expect(try template.expand(text) == String(repeating: "a ann ", count: 200_000))
        #expect(Template.names(in: text) == ["user"])
        #expect(Template.literalText(in: text) == String(repeating: "a  ", count: 200_000))
        // A brace followed by a combining mark is still a brace, for the opening and the closing
        // alike (the close was read by characters, the opening by bytes).
        #expect(try template.expand("{{user}}\u{301}") == "ann\u{301}")
        // About 20 s each before; well under a second now.
        #expect(ContinuousClock.now - start < .seconds(20))
    }

    @Test("the literal text of a template is what expanding it keeps as written: nested expressions go whole, an escaped {{ stays, an unclosed one and what follows it stay")
    func literalText() {
        #expect(Template.literalText(in: "{{url}}/items") == "/items")
        #expect(Template.literalText(in: "a {{$base64 {{user}} {{password}}}} b") == "a  b")
        #expect(Template.literalText(in: #"\{{not a variable}} {{user}}"#) == "{{not a variable}} ")
        #expect(Template.literalText(in: "x {{user") == "x {{user")
        #expect(Template.literalText(in: "plain") == "plain")
    }

    @Test("only named environment variables are read; unknown names fail with a suggestion")
    func failures() {
        #expect(throws: Template.Failure.unsetEnvironmentVariable("HOME_X")) { try template.expand("{{$env.HOME_X}}") }
        #expect(throws: Template.Failure.undefined("HOME", suggestion: nil)) { try template.expand("{{HOME}}") }
        #expect(throws: Template.Failure.undefined("usr", suggestion: "user")) { try template.expand("{{usr}}") }
        #expect(throws: Template.Failure.tooDeep("loop")) { try template.expand("{{loop}}") }
        #expect(throws: Template.Failure.unclosed) { try template.expand("{{user") }
        #expect(throws: Template.Failure.badBuiltin("$nope")) { try template.expand("{{$nope}}") }
        // Bounds the wrong way round are named for what they are (found by a new user's trial).
        #expect(throws: Template.Failure.badRandomBounds("$randomInt 10 1")) { try template.expand("{{$randomInt 10 1}}") }
        #expect(Template.Failure.badRandomBounds("$randomInt 10 1").description.contains("the smaller first"))
    }
}

@Suite("templates: literal values")
struct TemplateLiteralTests {
    @Test("a secret's or --var's value is used as it is, even with {{ in it")
    func literalValues() throws {
        var template = Template(variables: ["secret": "a{{b}}c", "plain": "{{secret}}!"])
        template.literal = ["secret"]
        #expect(try template.expand("{{plain}}") == "a{{b}}c!")
    }
}
