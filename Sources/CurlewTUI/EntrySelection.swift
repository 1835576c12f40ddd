/// The entries of an opened log the browser shows, in file order: every entry (kept as a count,
/// so ten million rows cost nothing) or the ones a filter matched (four bytes each).
public struct EntrySelection: Equatable, Sendable {
    private var everything: Int?
    private var matched: [UInt32] = []

    /// Every entry from 0 to `count`.
    public static func all(_ count: Int) -> EntrySelection {
        var selection = EntrySelection()
        selection.everything = count
        return selection
    }

    /// The entries a filter matched.
    public static func matching(_ indices: [UInt32]) -> EntrySelection {
        var selection = EntrySelection()
        selection.matched = indices
        return selection
    }

    /// How many rows there are.
    public var count: Int { everything ?? matched.count }
    public var isEmpty: Bool { count == 0 }
    /// The row positions, `0..<count`.
    public var indices: Range<Int> { 0..<count }

    /// The entry index shown at row `position`.
    public subscript(position: Int) -> Int {
        everything != nil ? position : Int(matched[position])
    }

    /// Adds entries found after the current ones: all up to `count`, or those matched.
    mutating func extend(allTo count: Int) {
        if everything != nil { everything = count }
    }

    mutating func append(_ indices: [UInt32]) {
        if everything == nil { matched += indices }
    }
}
