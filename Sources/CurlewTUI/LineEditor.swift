/// A one-line text field: while it has focus every printable key is text.
public struct LineEditor: Sendable, Equatable {
    public private(set) var text: String
    /// Cursor position in characters.
    public private(set) var cursor: Int

    public init(_ text: String = "") {
        self.text = text
        cursor = text.count
    }

    public enum Outcome: Equatable {
        case editing, committed, cancelled
    }

    /// Applies a key; Enter commits, Esc cancels, everything printable is inserted.
    public mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .enter: return .committed
        case .escape: return .cancelled
        case .character(let character):
            insert(String(character))
        case .paste(let text):
            insert(text)
        case .backspace:
            guard cursor > 0 else { break }
            let index = text.index(text.startIndex, offsetBy: cursor - 1)
            text.remove(at: index)
            cursor -= 1
        case .delete:
            guard cursor < text.count else { break }
            text.remove(at: text.index(text.startIndex, offsetBy: cursor))
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(text.count, cursor + 1)
        case .home, .control("a"): cursor = 0
        case .end, .control("e"): cursor = text.count
        case .control("u"):
            text.removeSubrange(text.startIndex..<text.index(text.startIndex, offsetBy: cursor))
            cursor = 0
        case .control("k"):
            text.removeSubrange(text.index(text.startIndex, offsetBy: cursor)...)
        default: break
        }
        return .editing
    }

    public mutating func insert(_ fragment: String) {
        let at = text.index(text.startIndex, offsetBy: cursor)
        let end = text.utf8.distance(from: text.startIndex, to: at) + fragment.utf8.count
        text.insert(contentsOf: fragment, at: at)
        // After the characters that start before the fragment's end: a combining mark or an
        // emoji modifier joins the character before it, and a joiner can make the characters on
        // both sides one, so the text may grow by fewer characters than the fragment has, or
        // by fewer than none.
        let endIndex = text.utf8.index(text.startIndex, offsetBy: end)
        var count = 0
        var index = text.startIndex
        while index < endIndex {
            count += 1
            index = text.index(after: index)
        }
        cursor = count
    }

    public mutating func replace(with newText: String) {
        text = newText
        cursor = newText.count
    }

    /// The text as shown in `width` cells with a visible cursor, scrolled to keep it in view.
    public func display(width: Int) -> String {
        // A pasted multi-line body shows its line breaks as ↵ on the one line.
        let characters = text.map { $0 == "\n" ? "↵" : $0 } + [" "]
        // Measured once, in one pass back from the cursor: a long paste stays quick to show.
        var start = cursor
        var used = TextWidth.of(characters[cursor])
        while start > 0 {
            let cells = TextWidth.of(characters[start - 1])
            if used + cells > width - 1 { break }
            used += cells
            start -= 1
        }
        var shown = ""
        var shownCells = 0
        for (offset, character) in characters[start...].enumerated() {
            if start + offset == cursor { shown += "▏" }
            shown.append(character)
            shownCells += TextWidth.of(character)
            if shownCells > width + 1 { break }
        }
        return TextWidth.truncate(shown, to: width)
    }
}
