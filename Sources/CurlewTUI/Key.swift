/// A mouse action in cell coordinates.
public struct MouseEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case click, wheelUp, wheelDown
    }

    public var kind: Kind
    public var row: Int
    public var column: Int

    public init(kind: Kind, row: Int, column: Int) {
        self.kind = kind
        self.row = row
        self.column = column
    }
}

/// One key press (or mouse action, or resize) as the app sees it, whatever the terminal sent.
public enum Key: Sendable, Hashable {
    case character(Character)
    case control(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, tab, backTab, backspace, delete
    case function(Int)
    case mouse(MouseEvent)
    /// Text the terminal delivered as one paste (bracketed paste): always text, never commands.
    case paste(String)
    case resize

    /// How the key is written in the help overlay.
    public var label: String {
        switch self {
        case .character(" "): "Space"
        case .character(let character): String(character)
        case .control(let character): "Ctrl-" + String(character).uppercased()
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .home: "Home"
        case .end: "End"
        case .enter: "Enter"
        case .escape: "Esc"
        case .tab: "Tab"
        case .backTab: "Shift-Tab"
        case .backspace: "Backspace"
        case .delete: "Del"
        case .function(let number): "F\(number)"
        case .mouse: "mouse"
        case .paste: "paste"
        case .resize: "resize"
        }
    }
}
