import CurlewAgent
@testable import CurlewWorkspace
import Foundation
import Testing

@Suite("the workspace JSON Schema")
struct SchemaTests {
    static func schema() throws -> JSONValue {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/workspace.schema.json")
        return try JSONValue.parse(try Data(contentsOf: url))
    }

    static func keys(_ value: JSONValue?) -> [String] {
        guard case .object(let members)? = value?["properties"] else { return [] }
        return members.map(\.key).sorted()
    }

    @Test("docs/workspace.schema.json names exactly the keys the reader accepts, section by section")
    func schemaMatchesReader() throws {
        let schema = try Self.schema()
        let properties = schema["properties"]
        #expect(Self.keys(schema) == Workspace.topLevelKeys.sorted())
        #expect(Self.keys(properties?["config"]) == ConfigReader.keys.sorted())
        #expect(Self.keys(properties?["config"]?["properties"]?["tls"]) == ConfigReader.tlsKeys.sorted())
        let request = properties?["requests"]?["additionalProperties"]
        #expect(Self.keys(request) == RequestReader.keys.sorted())
        #expect(Self.keys(request?["properties"]?["expect"]) == RequestReader.expectKeys.sorted())
        #expect(Self.keys(properties?["groups"]?["additionalProperties"]) == WorkspaceGroup.keys.sorted())
        guard case .array(let retryForms)? = properties?["config"]?["properties"]?["retry"]?["oneOf"] else { Issue.record("retry"); return }
        #expect(Self.keys(retryForms[1]) == ConfigReader.retryKeys.sorted())
    }

    /// The second form of a `oneOf` (the mapping beside a short form such as `cookies: true`).
    static func mappingForm(_ value: JSONValue?) -> JSONValue? {
        guard case .array(let forms)? = value?["oneOf"] else { return value }
        return forms.last
    }

    @Test("every nested mapping of the schema names the keys its reader accepts")
    func nestedSectionsMatchReader() throws {
        let schema = try Self.schema()
        let config = schema["properties"]?["config"]?["properties"]
        let request = schema["properties"]?["requests"]?["additionalProperties"]?["properties"]
        let group = schema["properties"]?["groups"]?["additionalProperties"]?["properties"]
        let sections: [(String, JSONValue?, [String])] = [
            ("config.signers", config?["signers"]?["additionalProperties"], WorkspaceKeys.signer),
            ("config.cookies", Self.mappingForm(config?["cookies"]), WorkspaceKeys.cookies),
            ("config.cache", config?["cache"], WorkspaceKeys.cache),
            ("config.mocks", config?["mocks"], WorkspaceKeys.mocks),
            ("config.mocks.rules", config?["mocks"]?["properties"]?["rules"]?["items"], WorkspaceKeys.mockRule),
            ("config.duplicates", Self.mappingForm(config?["duplicates"]), WorkspaceKeys.duplicates),
            ("config.reachability", config?["reachability"], WorkspaceKeys.reachability),
            ("config.tips", config?["tips"], WorkspaceKeys.tips),
            ("config.businessCode", config?["businessCode"], WorkspaceKeys.businessCode),
            ("config.logger", Self.mappingForm(config?["logger"]), WorkspaceKeys.logger),
            ("request.multipart", request?["multipart"]?["items"], WorkspaceKeys.multipartPart),
            ("request.cache", request?["cache"], WorkspaceKeys.requestCache),
            ("request.mock", request?["mock"], WorkspaceKeys.mockAction),
            ("request.businessCode", request?["businessCode"], WorkspaceKeys.businessCode),
            ("expect.headers", Self.mappingForm(request?["expect"]?["properties"]?["headers"]?["additionalProperties"]), WorkspaceKeys.match),
            ("group member", Self.mappingForm(group?["chain"]?["items"]), WorkspaceKeys.member),
            ("group policy", Self.mappingForm(group?["policy"]), WorkspaceKeys.requiredPolicy),
        ]
        for (name, node, keys) in sections {
            #expect(Self.keys(node) == keys.sorted(), "\(name)")
        }
    }
}
