/// What the model asks of the terminal itself, beyond drawing frames: the curses loop carries
/// these out between frames.
public enum TerminalRequest: Sendable, Equatable {
    /// Put text on the system clipboard (OSC 52, which tmux and SSH pass on).
    case copy(String)
    /// Open text in the user's `$VISUAL` / `$EDITOR`, then give the result to the field.
    case edit(String, field: EditorField, fileExtension: String)
}
