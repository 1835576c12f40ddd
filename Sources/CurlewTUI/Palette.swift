/// The command palette (Ctrl-P): every command and every request and group in Compose, found by
/// typing a few letters of them in order.
public struct Palette: Sendable {
    /// What choosing an entry does.
    public enum Action: Sendable, Equatable {
        case command(Command)
        /// A command-line command that takes an argument: the prompt opens with it typed.
        case commandLine(String)
        /// A Compose list item, by position.
        case item(Int)
    }

    public struct Entry: Sendable, Equatable {
        public var title: String
        public var detail: String
        public var action: Action

        var isItem: Bool {
            if case .item = action { return true }
            return false
        }
    }

    public let entries: [Entry]
    public var query: LineEditor = LineEditor()
    public var selected = 0

    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// The entries that match the query, best first: every letter of the query appears in the
    /// title in order (any case); a match at the start or at word starts ranks higher.
    public var matches: [Entry] {
        let needle = Array(query.text.lowercased().filter { !$0.isWhitespace })
        guard !needle.isEmpty else { return entries }
        // On a tie a request or group ranks before a command: finding one is what the palette
        // is mostly for.
        return entries.compactMap { entry in Self.score(needle, in: entry.title.lowercased()).map { (entry, $0 * 2 + (entry.isItem ? 1 : 0)) } }
            .sorted { $0.1 > $1.1 }
            .map(\.0)
    }

    /// A subsequence match's score, or nil when the letters are not all there in order.
    static func score(_ needle: [Character], in haystack: String) -> Int? {
        var score = 0
        var index = needle.startIndex
        var previous: Character = " "
        var run = 0
        for character in haystack {
            defer { previous = character }
            guard index < needle.endIndex else { break }
            if character == needle[index] {
                run += 1
                score += 1 + run + (previous == " " || previous == "/" || previous == "-" ? 3 : 0)
                index += 1
            } else {
                run = 0
            }
        }
        return index == needle.endIndex ? score : nil
    }
}
