/// What a click selects: recorded while rows are drawn, so the mouse always agrees with what is
/// on the screen (its scroll, its real width), never with a recomputed layout.
enum HitTarget: Equatable {
    case composeItem(Int)
    /// A folder's heading in Compose's list: a click folds or unfolds it.
    case composeFolder(String)
    /// A field of Compose's editor, by position in its list of fields.
    case editorField(Int)
    /// A field of the group editor, by position in its list of fields.
    case groupField(Int)
    case liveRow(Int)
    case group(Int)
    case logFile(Int)
    /// A position in the opened log's filtered list.
    case logEntry(Int)
}

/// Cells of one screen row that select a target.
struct HitRegion: Equatable {
    var row: Int
    var columns: Range<Int>
    var target: HitTarget
}

extension AppModel {
    /// Makes `columns` of `row` select `target` until the next frame.
    func registerHit(row: Int, columns: Range<Int>, _ target: HitTarget) {
        hitRegions.append(HitRegion(row: row, columns: columns, target: target))
    }

    /// The target drawn at a cell in the last frame.
    func hitTarget(row: Int, column: Int) -> HitTarget? {
        hitRegions.last { $0.row == row && $0.columns.contains(column) }?.target
    }
}
