/// The colours for the terminal's background: the standard ones suit a dark background; the light
/// theme trades those that fade on white (yellow, cyan, white) for darker ones. `NO_COLOR` turns
/// colour off whatever the theme.
public enum Theme: String, Sendable, CaseIterable {
    case dark, light

    /// How a style is drawn in this theme.
    public func apply(_ style: Style) -> Style {
        guard self == .light else { return style }
        var style = style
        let darkerBackground = style.background == .cyan
        style.background = Self.light(style.background)
        style.foreground = darkerBackground && style.foreground == .black ? .white : Self.light(style.foreground)
        return style
    }

    private static func light(_ color: TerminalColor) -> TerminalColor {
        switch color {
        case .white: .black
        case .yellow: .magenta
        case .cyan: .blue
        default: color
        }
    }
}
