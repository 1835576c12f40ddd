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
    }

    @Test("text is escaped for the chain that fills it: every {{ left as text (an escaped \\{{, a value's own, one left unclosed) is written \\{{, backslashes before a {{ are doubled, and deferred names stay templates (found by review: the chain filled an escaped captured name, and read a variable's trailing backslash as an escape; found by a new user's trial: an unclosed literal {{ hid the next captured name)")
    func escapedForTheChain() throws {
        // Text no chain fills (a content type, a path) is not escaped, deferred names or not.
        #expect(try template.expand(#"\{{token}} {{token}}"#) == "{{token}} {{token}}")
        var handed = template
        handed.chainFills = ["token"]
        #expect(try handed.expand(#"\{{token}} {{token}} \{{ token }} \{{user}} \{{tokens}}"#) == #"\{{token}} {{token}} \{{ token }} \{{user}} \{{tokens}}"#)
        // A literal `{{` left unclosed before a deferred name is escaped too, so the chain finds the name.
        #expect(try handed.expand(#"\{{x {{token}} \{{{{token}}"#) == #"\{{x {{token}} \{{{{token}}"#)
        var nested = handed
        nested.variables["header"] = #"Bearer \{{token}}"#
        nested.variables["dir"] = #"C:\up\"#
        nested.variables["given"] = "{{token}}"
        nested.literal = ["given"]
        // Through a variable's value, a value's own {{, and a backslash a value ends with.
        #expect(try nested.expand("{{header}}") == #"Bearer \{{token}}"#)
        #expect(try nested.expand("{{given}}") == #"\{{token}}"#)
        #expect(try nested.expand("{{dir}}{{token}} {{dir}}\\{{token}}") == #"C:\up\\{{token}} C:\up\\\{{token}}"#)
        // A built-in's argument is the text sent: its escape is read there.
        #expect(try nested.expand(#"{{$base64 \{{token}}}}"#) == Data("{{token}}".utf8).base64EncodedString())
        // Names the chain fills only later (captured after this step) are escaped as well.
        nested.deferred = []
        nested.chainFills = ["token"]
        #expect(try nested.expand(#"\{{token}} {{dir}}"#) == #"\{{token}} C:\up\"#)
        // With no chain after it, nothing is escaped.
        nested.chainFills = []
        #expect(try nested.expand(#"\{{token}} {{given}}"#) == "{{token}} {{token}}")
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
