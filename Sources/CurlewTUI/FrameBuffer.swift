/// One terminal cell: a character (empty for the right half of a wide character) and its style.
public struct Cell: Sendable, Equatable {
    public var text: String
    public var style: Style

    public static let blank = Cell(text: " ", style: .plain)
    static let continuation = Cell(text: "", style: .plain)
}

/// A grid of cells that panes draw into; a `Screen` shows it. Wide characters take two cells
/// and are never split: one that does not fit is replaced by a space.
public struct FrameBuffer: Sendable, Equatable {
    public let rows: Int
    public let columns: Int
    private(set) var cells: [Cell]

    public init(rows: Int, columns: Int) {
        self.rows = max(0, rows)
        self.columns = max(0, columns)
        cells = Array(repeating: .blank, count: self.rows * self.columns)
    }

    public subscript(row: Int, column: Int) -> Cell {
        cells[row * columns + column]
    }

    /// Writes `text` at a position, clipped to `width` cells (default: to the right edge).
    /// Returns the number of cells used.
    @discardableResult
    public mutating func put(_ text: String, row: Int, column: Int, style: Style = .plain, width: Int? = nil) -> Int {
        guard row >= 0, row < rows, column < columns else { return 0 }
        let limit = min(columns, column + (width ?? columns))
        var position = column
        for character in text {
            let cells = TextWidth.of(character)
            if cells == 0 { continue }
            if position + cells > limit {
                if position < limit { set(row, position, Cell(text: " ", style: style)) }
                position = limit
                break
            }
            let shown = TextWidth.visible(character)
            if shown.count > 1 {
                // A character drawn with stand-ins beside it: each part in cells of its own.
                var at = position
                for part in shown {
                    let partCells = max(1, TextWidth.of(part))
                    if at >= 0 {
                        set(row, at, Cell(text: String(part), style: style))
                        if partCells == 2 { set(row, at + 1, Cell(text: "", style: style)) }
                    }
                    at += partCells
                }
            } else if position >= 0 {
                set(row, position, Cell(text: shown, style: style))
                if cells == 2 { set(row, position + 1, Cell(text: "", style: style)) }
            }
            position += cells
        }
        return max(0, position - column)
    }

    /// Fills `width` cells of a row with one character.
    public mutating func fill(row: Int, column: Int, width: Int, character: Character = " ", style: Style = .plain) {
        guard width > 0 else { return }
        put(String(repeating: character, count: width), row: row, column: column, style: style, width: width)
    }

    /// Writes `text` and pads the rest of `width` with the same style (for highlighted rows).
    public mutating func putLine(_ text: String, row: Int, column: Int, width: Int, style: Style = .plain) {
        let used = put(text, row: row, column: column, style: style, width: width)
        fill(row: row, column: column + used, width: width - used, style: style)
    }

    private mutating func set(_ row: Int, _ column: Int, _ cell: Cell) {
        let index = row * columns + column
        // Overwriting half of a wide character blanks its other half.
        if cells[index].text.isEmpty, column > 0 {
            cells[index - 1] = Cell(text: " ", style: cells[index - 1].style)
        } else if column + 1 < columns, cells[index + 1].text.isEmpty, !cell.text.isEmpty {
            cells[index + 1] = Cell(text: " ", style: cells[index + 1].style)
        }
        cells[index] = cell
    }

    /// One row as text; wide characters appear once.
    public func line(_ row: Int) -> String {
        (0..<columns).map { self[row, $0].text }.joined()
    }

    /// The whole frame as text, one line per row, trailing spaces removed.
    public var text: String {
        (0..<rows).map { row in
            var line = self.line(row)
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }
}

/// Where a frame is shown: the terminal, or memory in tests.
public protocol Screen: AnyObject {
    var size: (rows: Int, columns: Int) { get }
    func present(_ frame: FrameBuffer)
}

/// A screen kept in memory, for tests: it remembers the last frame presented.
public final class VirtualScreen: Screen {
    public private(set) var size: (rows: Int, columns: Int)
    public private(set) var frame: FrameBuffer
    public private(set) var presentCount = 0

    public init(rows: Int, columns: Int) {
        size = (rows, columns)
        frame = FrameBuffer(rows: rows, columns: columns)
    }

    public func resize(rows: Int, columns: Int) {
        size = (rows, columns)
    }

    public func present(_ frame: FrameBuffer) {
        self.frame = frame
        presentCount += 1
    }

    public var text: String { frame.text }
}
