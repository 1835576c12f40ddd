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
}
