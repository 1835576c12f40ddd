/// The eight basic terminal colours, which every colour terminal has.
public enum TerminalColor: Int, Sendable, Hashable {
    case standard = -1
    case black = 0, red, green, yellow, blue, magenta, cyan, white
}

/// How a cell looks.
public struct Style: Sendable, Hashable {
    public var foreground: TerminalColor
    public var background: TerminalColor
    public var bold: Bool
    public var reverse: Bool
    public var underline: Bool
    public var dim: Bool

    public init(foreground: TerminalColor = .standard, background: TerminalColor = .standard,
                bold: Bool = false, reverse: Bool = false, underline: Bool = false, dim: Bool = false) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.reverse = reverse
        self.underline = underline
        self.dim = dim
    }

    public static let plain = Style()
    public static let bold = Style(bold: true)
    public static let dim = Style(dim: true)
    public static let selected = Style(reverse: true)
    public static let title = Style(foreground: .cyan, bold: true)
    public static let accent = Style(foreground: .cyan)
    public static let good = Style(foreground: .green)
    public static let warning = Style(foreground: .yellow)
    public static let bad = Style(foreground: .red, bold: true)
    public static let bar = Style(foreground: .black, background: .cyan)

    public static func status(_ code: Int?) -> Style {
        guard let code else { return .bad }
        switch code {
        case 200..<300: return .good
        case 300..<400: return .accent
        case 400..<500: return .warning
        default: return .bad
        }
    }
}
