import CurlewAgent
import CurlewWorkspace
import Foundation
import Testing

@Suite("saving one group entry")
struct GroupEntryWriterTests {
    static let workspace = """
    # top
    requests:
      login: {url: /login}
      me: {url: /me}
    groups:
      # the smoke run
      smoke:
        batch: [login, me]
        folder: checks     # kept by a save
        description: both at once
      outer: {chain: [{group: smoke}]}
    """

    @Test("saving replaces only the group's lines, keeps its description, and reads back")
    func replaceKeepsTheRest() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        let chain = GroupDefinition(kind: .chain, members: [
            .init(.request("login"), captures: [.json("token", "$.token"), Capture("sid", from: .header("Set-Cookie"))]),
            .init(.request("me")),
        ], onFailure: .continue, folder: "checks")
        try WorkspaceWriter.save(group: chain, named: "smoke", in: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("# top\nrequests:\n  login: {url: /login}\n  me: {url: /me}\ngroups:\n  # the smoke run\n  smoke:\n"), "\(text)")
        #expect(text.contains("folder: checks") && text.contains("description: both at once"), "\(text)")
        #expect(text.contains("  outer: {chain: [{group: smoke}]}"))
        let group = try #require(try Workspace.load(path: path).group(named: "smoke"))
        #expect(GroupDefinition(group) == chain)
        #expect(group.folder == "checks")
    }

    @Test("a batch's policy and limits, a window's maxInFlight and priority-first read back as written")
    func everyField() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        let batch = GroupDefinition(kind: .batch, members: [.init(.request("me")), .init(.group("smoke"))], policy: .required([1]), maxConcurrency: 3,
                                    priorityFirst: true)
        try WorkspaceWriter.save(group: batch, named: "new batch", in: path)
        let window = GroupDefinition(kind: .window, members: [.init(.request("login"))], maxInFlight: 5)
        try WorkspaceWriter.save(group: window, named: "win", in: path)
        let workspace = try Workspace.load(path: path)
        #expect(workspace.groups.map(\.name) == ["smoke", "outer", "new batch", "win"])
        #expect(GroupDefinition(try #require(workspace.group(named: "new batch"))) == batch)
        #expect(GroupDefinition(try #require(workspace.group(named: "win"))) == window)
    }

    @Test("a rename moves the entry; names of requests and other groups are refused; nothing invalid is written")
    func renameAndRefusals() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        let original = try String(contentsOfFile: path, encoding: .utf8)
        let one = GroupDefinition(kind: .batch, members: [.init(.request("me"))])
        #expect(throws: WorkspaceError.self) { try WorkspaceWriter.save(group: one, named: "login", in: path) }
        #expect(throws: WorkspaceError.self) { try WorkspaceWriter.save(group: one, named: "outer", replacing: "smoke", in: path) }
        // A member that names nothing would not load: refused, the file untouched.
        let broken = GroupDefinition(kind: .batch, members: [.init(.request("nobody"))])
        let error = #expect(throws: WorkspaceError.self) { try WorkspaceWriter.save(group: broken, named: "x", in: path) }
        #expect(error?.message.contains("nothing was written") == true, "\(error?.description ?? "")")
        // A group containing itself is refused the same way.
        let cycle = GroupDefinition(kind: .chain, members: [.init(.group("outer"))])
        #expect(throws: WorkspaceError.self) { try WorkspaceWriter.save(group: cycle, named: "smoke", in: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == original)
        // A rename: the group that nests it must follow, so renaming it alone is refused too.
        #expect(throws: WorkspaceError.self) { try WorkspaceWriter.save(group: one, named: "renamed", replacing: "smoke", in: path) }
        try WorkspaceWriter.save(group: one, named: "renamed", replacing: "outer", in: path)
        #expect(try Workspace.load(path: path).groups.map(\.name) == ["smoke", "renamed"])
    }

    @Test("the workspace as a save would leave it is built without writing")
    func inMemory() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        let edited = GroupDefinition(kind: .batch, members: [.init(.request("me"))], policy: .any)
        let workspace = try WorkspaceWriter.workspaceSaving(edited, named: "smoke", in: path)
        #expect(workspace.group(named: "smoke")?.policy == .any)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Self.workspace)
    }

    @Test("delete removes a group; one another group uses is refused with nothing written")
    func delete() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        #expect(throws: WorkspaceError.self) { try WorkspaceWriter.delete(groupNamed: "smoke", in: path) }
        try WorkspaceWriter.delete(groupNamed: "outer", in: path)
        try WorkspaceWriter.delete(groupNamed: "smoke", in: path)
        let workspace = try Workspace.load(path: path)
        #expect(workspace.groups.isEmpty && workspace.requests.count == 2)
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("# top\nrequests:\n  login: {url: /login}\n  me: {url: /me}\ngroups:\n"))
    }
}
