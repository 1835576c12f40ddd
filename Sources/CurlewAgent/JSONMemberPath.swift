/// The member names a point in JSON text lies under, kept as a walk over the text's tokens meets
/// them, so that a member is judged by its path as well as its name: `{"api": {"key": …}}` holds
/// the member a form writes as `api[key]`, which is secret as `api_key` is. Arrays add no name
/// (`{"api": [{"key": …}]}` is `api[][key]`).
///
/// Names are ranges of the walked bytes, kept for the levels a member opened (an array's own
/// levels cost a count), and only the innermost names that fit in a limit are read (see
/// `joinedLimit`): a hostile body nested a million deep costs neither memory beyond its size
/// nor quadratic time.
struct JSONMemberPath {
    /// How many bytes of joined names to read for secret names at most `longest` bytes long
    /// (folded): only the names nearest a member can spell one with it, and a path's names
    /// beyond that are left out. Room to spare for what a name's bytes hold beside its letters:
    /// separators a folded name leaves out, and escapes (`\u0061` is six bytes for `a`).
    static func joinedLimit(longest: Int) -> Int {
        8 * longest + 64
    }

    /// The names of the members whose objects or arrays are open, outermost first, each with
    /// the level it opened.
    private var names: [(range: Range<Int>, level: Int)] = []
    /// How many objects and arrays are open.
    private var level = 0
    /// The member whose name was just read, until its value starts.
    private var pendingName: Range<Int>?

    /// Whether a name encloses the point the walk has reached.
    var isNested: Bool { !names.isEmpty }

    /// A member's name (`range` of the bytes) and its colon were read; its value comes next.
    mutating func readName(_ range: Range<Int>) {
        pendingName = range
    }

    /// The walk met `byte` outside any string: an object or array opens or closes, or a value
    /// that is not a member's object or array (a number, a literal) takes the place of the
    /// name just read. White space changes nothing.
    mutating func readStructural(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            level += 1
            if let name = pendingName, !name.isEmpty { names.append((name, level)) }
            pendingName = nil
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            pendingName = nil
            guard level > 0 else { return }
            if names.last?.level == level { names.removeLast() }
            level -= 1
        case 0x20, 0x09, 0x0A, 0x0D:
            break
        default:
            pendingName = nil
        }
    }

    /// A string that is not a member's name was read (a value, an array's element).
    mutating func readString() {
        pendingName = nil
    }

    /// Calls `body` with the member named `name` (a range of `bytes`) written as a form nests
    /// it, its enclosing names first (`api[key]`; `stripe[api][key]`), and returns its answer.
    /// Only the innermost names that fit in `limit` bytes with it are written (`joinedLimit`).
    func withNestedName<Result>(_ name: Range<Int>, in bytes: UnsafeRawBufferPointer, limit: Int,
                                _ body: (UnsafeRawBufferPointer.SubSequence) -> Result) -> Result {
        // The innermost names, outward, while they fit.
        var first = names.count
        var total = name.count
        while first > 0, total + names[first - 1].range.count + 2 <= limit {
            first -= 1
            total += names[first].range.count + 2
        }
        return withUnsafeTemporaryAllocation(byteCount: total, alignment: 1) { room in
            var count = 0
            func write(_ range: Range<Int>, nested: Bool) {
                if nested { room[count] = UInt8(ascii: "["); count += 1 }
                UnsafeMutableRawBufferPointer(rebasing: room[count..<(count + range.count)]).copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[range]))
                count += range.count
                if nested { room[count] = UInt8(ascii: "]"); count += 1 }
            }
            for index in first..<names.count { write(names[index].range, nested: index > first) }
            write(name, nested: first < names.count)
            return body(UnsafeRawBufferPointer(room)[0..<count])
        }
    }
}
