import Testing

/// Each command's help as a terminal shows it: its prose wrapped once, by the argument parser at
/// the terminal's width, never broken again where the source had its own line ends.
@Suite("Command help")
struct HelpTextTests {
    static let commands: [[String]] = [["send"], ["run"], ["import"], ["export"], ["log", "show"], ["log", "stats"], ["log", "diff"],
                                       ["demo"], ["demo-server"], ["tui"]]

    /// The lines above `USAGE:`: the overview and the discussion.
    private static func overview(_ command: [String], columns: Int) async throws -> [String] {
        let run = try await CurlewProcess.run(command + ["--help"], environment: ["COLUMNS": String(columns)])
        #expect(run.status == 0, "\(command) --help")
        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return Array(lines.prefix { !$0.hasPrefix("USAGE:") })
    }

    @Test("at 132 columns, a paragraph's lines run to the width: no line end from the source shows", arguments: commands)
    func wide(command: [String]) async throws {
        let lines = try await Self.overview(command, columns: 132)
        #expect(lines.allSatisfy { $0.count <= 132 })
        for (line, next) in zip(lines, lines.dropFirst()) where !line.isEmpty && !next.isEmpty
            && line.first?.isWhitespace == false && next.first?.isWhitespace == false && !line.hasSuffix(":") {
            #expect(line.count > 100, "\(command): a paragraph broken at \(line.count) columns: \"\(line)\" / \"\(next)\"")
        }
    }

    @Test("at 80 columns, an indented table line is never wrapped into a fragment", arguments: commands)
    func narrow(command: [String]) async throws {
        let lines = try await Self.overview(command, columns: 80)
        #expect(lines.allSatisfy { $0.count <= 80 })
        for (line, next) in zip(lines, lines.dropFirst()) where line.first?.isWhitespace == true && !next.isEmpty {
            #expect(next.first?.isWhitespace == true, "\(command): \"\(line)\" continues as \"\(next)\"")
        }
    }
}
