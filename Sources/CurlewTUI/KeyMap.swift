/// What the user can ask for. Keys map to commands through `KeyMap`; the command prompt names them too.
public enum Command: String, Sendable, CaseIterable {
    case nextPane, previousPane, composePane, livePane, groupsPane, logsPane
    case up, down, left, right, pageUp, pageDown, top, bottom
    case open, back, filter, commandPrompt, help, quit
    case send, cancel, duplicate, edit, toggleRow, addRow, deleteRow
    case toggleFollow, togglePause, nextTab, previousTab, search, nextMatch
    case resend, toggleMouse, cancelMember, clearFilter
    case toggleResponse, scrollResponseUp, scrollResponseDown
    case save, newRequest, switchEnvironment
    case externalEdit, prettyPrint, copy
    case mark, compare, latency, palette, stepChain
    case newGroup, moveUp, moveDown, variables, history, toggleSecrets, toggleFold
}

/// Where a binding applies. The most specific context wins over `global`.
public enum KeyContext: String, Sendable, CaseIterable {
    case global, compose, live, groups, logs, detail
}

/// One row of the key map: keys, the command they trigger, where, and the help text.
public struct KeyBinding: Sendable {
    public var keys: [Key]
    public var command: Command
    public var context: KeyContext
    public var help: String
}

/// Key bindings as data. The help overlay is generated from this same table.
public struct KeyMap: Sendable {
    public var bindings: [KeyBinding]

    public func command(for key: Key, in context: KeyContext) -> Command? {
        bindings.first { $0.context == context && $0.keys.contains(key) }?.command
            ?? bindings.first { $0.context == .global && $0.keys.contains(key) }?.command
    }

    /// How the first key of a command is written, for hints (the context's binding, else the
    /// global one); nil when no key runs it.
    public func label(for command: Command, in context: KeyContext) -> String? {
        let binding = bindings.first { $0.context == context && $0.command == command } ?? bindings.first { $0.context == .global && $0.command == command }
        return binding?.keys.first?.label
    }

    /// Help lines grouped by context, in table order.
    public func helpLines() -> [(context: KeyContext, command: Command, keys: String, help: String)] {
        KeyContext.allCases.flatMap { context in
            bindings.filter { $0.context == context }.map { (context, $0.command, $0.keys.map(\.label).joined(separator: " "), $0.help) }
        }
    }

    public static let standard = KeyMap(bindings: [
        KeyBinding(keys: [.tab], command: .nextPane, context: .global, help: "next pane"),
        KeyBinding(keys: [.backTab], command: .previousPane, context: .global, help: "previous pane"),
        KeyBinding(keys: [.character("1")], command: .composePane, context: .global, help: "Compose pane"),
        KeyBinding(keys: [.character("2")], command: .livePane, context: .global, help: "Live pane"),
        KeyBinding(keys: [.character("3")], command: .groupsPane, context: .global, help: "Groups pane"),
        KeyBinding(keys: [.character("4")], command: .logsPane, context: .global, help: "Log browser"),
        KeyBinding(keys: [.up, .character("k")], command: .up, context: .global, help: "move up"),
        KeyBinding(keys: [.down, .character("j")], command: .down, context: .global, help: "move down"),
        KeyBinding(keys: [.left, .character("h")], command: .left, context: .global, help: "left / previous choice"),
        KeyBinding(keys: [.right, .character("l")], command: .right, context: .global, help: "right / next choice"),
        KeyBinding(keys: [.pageUp, .control("b")], command: .pageUp, context: .global, help: "page up"),
        KeyBinding(keys: [.pageDown, .control("f")], command: .pageDown, context: .global, help: "page down"),
        KeyBinding(keys: [.character("g"), .home], command: .top, context: .global, help: "first row"),
        KeyBinding(keys: [.character("G"), .end], command: .bottom, context: .global, help: "last row"),
        KeyBinding(keys: [.enter], command: .open, context: .global, help: "open / edit"),
        KeyBinding(keys: [.escape], command: .back, context: .global, help: "back out / cancel"),
        KeyBinding(keys: [.character("/")], command: .filter, context: .global, help: "filter"),
        KeyBinding(keys: [.character(":")], command: .commandPrompt, context: .global, help: "command prompt (Tab completes)"),
        KeyBinding(keys: [.control("p")], command: .palette, context: .global, help: "command palette: find any command or request"),
        KeyBinding(keys: [.character("?")], command: .help, context: .global, help: "this help"),
        KeyBinding(keys: [.character("M")], command: .toggleMouse, context: .global, help: "mouse on/off (off: terminal text selection)"),
        KeyBinding(keys: [.character("q")], command: .quit, context: .global, help: "quit (asks if requests are in flight or unsaved)"),
        KeyBinding(keys: [.character("E")], command: .switchEnvironment, context: .global, help: "next environment of the workspace"),
        KeyBinding(keys: [.character("R")], command: .toggleSecrets, context: .global,
                   help: "reveal/hide secrets in exchanges (Authorization, cookies, URL passwords, declared secrets; hidden at start)"),

        KeyBinding(keys: [.character("s")], command: .send, context: .compose, help: "send the request / run the group (as edited)"),
        KeyBinding(keys: [.character("x")], command: .cancel, context: .compose, help: "cancel what this editor sent"),
        KeyBinding(keys: [.character("D")], command: .duplicate, context: .compose, help: "duplicate into a new request"),
        KeyBinding(keys: [.enter, .character("e")], command: .edit, context: .compose, help: "edit the field / load a request / open a group in the group editor"),
        KeyBinding(keys: [.character(" ")], command: .toggleRow, context: .compose, help: "switch a param or header row on/off"),
        KeyBinding(keys: [.character("a")], command: .addRow, context: .compose, help: "add a param or header row (group editor: a member)"),
        KeyBinding(keys: [.character("w"), .control("s")], command: .save, context: .compose, help: "save the request or group to the workspace file"),
        KeyBinding(keys: [.character("n")], command: .newRequest, context: .compose, help: "new request"),
        KeyBinding(keys: [.character("N")], command: .newGroup, context: .compose, help: "new group (batch, chain or window of saved requests)"),
        KeyBinding(keys: [.character("z")], command: .toggleFold, context: .compose, help: "fold the folder of the item under the cursor; on a folded folder, unfold it"),
        KeyBinding(keys: [.character("<")], command: .moveUp, context: .compose, help: "group editor: move the member up"),
        KeyBinding(keys: [.character(">")], command: .moveDown, context: .compose, help: "group editor: move the member down"),
        KeyBinding(keys: [.character("o")], command: .externalEdit, context: .compose, help: "edit the field in $VISUAL / $EDITOR"),
        KeyBinding(keys: [.character("P")], command: .prettyPrint, context: .compose, help: "pretty-print the JSON body"),
        KeyBinding(keys: [.character("y")], command: .copy, context: .compose, help: "copy the request as curl (:copy url|body|har|curl [raw])"),
        KeyBinding(keys: [.character("L")], command: .latency, context: .compose, help: "latency mode: send it (or run the group) 50 times in a row (:latency N)"),
        KeyBinding(keys: [.character("S")], command: .stepChain, context: .compose, help: "step through the selected chain one request at a time"),
        KeyBinding(keys: [.character("d")], command: .deleteRow, context: .compose, help: "delete a row or member (in the list: the request or group)"),
        KeyBinding(keys: [.character("v")], command: .toggleResponse, context: .compose, help: "response in place of the editor (narrow terminals)"),
        KeyBinding(keys: [.character("H")], command: .history, context: .compose, help: "history of the request: its exchanges now and in earlier sessions"),
        KeyBinding(keys: [.character("V")], command: .variables, context: .compose, help: "variables of the request: resolved values, secrets masked, undefined ones marked"),
        KeyBinding(keys: [.character("[")], command: .previousTab, context: .compose, help: "response: previous tab"),
        KeyBinding(keys: [.character("]")], command: .nextTab, context: .compose, help: "response: next tab"),
        KeyBinding(keys: [.character("K")], command: .scrollResponseUp, context: .compose, help: "response: scroll up"),
        KeyBinding(keys: [.character("J")], command: .scrollResponseDown, context: .compose, help: "response: scroll down"),

        KeyBinding(keys: [.character("f")], command: .toggleFollow, context: .live, help: "follow newest on/off"),
        KeyBinding(keys: [.character("p")], command: .togglePause, context: .live, help: "pause/resume the stream"),
        KeyBinding(keys: [.character("r")], command: .resend, context: .live, help: "re-send into Compose"),
        KeyBinding(keys: [.character("y")], command: .copy, context: .live, help: "copy as curl (:copy url|body|har|curl [raw])"),
        KeyBinding(keys: [.character("m")], command: .mark, context: .live, help: "mark for comparison (two marks, from any logs)"),
        KeyBinding(keys: [.character("=")], command: .compare, context: .live, help: "compare the marked exchanges side by side"),

        KeyBinding(keys: [.character("x")], command: .cancel, context: .groups, help: "cancel the group"),
        KeyBinding(keys: [.character("c")], command: .cancelMember, context: .groups, help: "cancel the selected member"),

        KeyBinding(keys: [.character("r")], command: .resend, context: .logs, help: "re-send into Compose"),
        KeyBinding(keys: [.character("y")], command: .copy, context: .logs, help: "copy as curl (:copy url|body|har|curl [raw])"),
        KeyBinding(keys: [.character("m")], command: .mark, context: .logs, help: "mark for comparison (two marks, from any logs)"),
        KeyBinding(keys: [.character("=")], command: .compare, context: .logs, help: "compare the marked exchanges side by side"),
        KeyBinding(keys: [.character("F")], command: .clearFilter, context: .logs, help: "clear the filter"),
        KeyBinding(keys: [.character("f")], command: .toggleFollow, context: .logs, help: "follow the opened log's newest entry on/off"),

        KeyBinding(keys: [.left, .character("h"), .character("[")], command: .previousTab, context: .detail, help: "previous tab"),
        KeyBinding(keys: [.right, .character("l"), .character("]")], command: .nextTab, context: .detail, help: "next tab"),
        KeyBinding(keys: [.character("/")], command: .search, context: .detail, help: "search in the body"),
        KeyBinding(keys: [.character("n")], command: .nextMatch, context: .detail, help: "next match"),
        KeyBinding(keys: [.character("r")], command: .resend, context: .detail, help: "re-send into Compose"),
        KeyBinding(keys: [.character("y")], command: .copy, context: .detail, help: "copy as curl (:copy url|body|har|curl [raw])"),
        KeyBinding(keys: [.character("m")], command: .mark, context: .detail, help: "mark for comparison (two marks, from any logs)"),
        KeyBinding(keys: [.character("=")], command: .compare, context: .detail, help: "compare the marked exchanges side by side"),
    ])
}
