/// "Did you mean …?" for a misspelt key or name: the closest candidate within a third of its length.
public enum Suggestion {
    public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        let word = Array(word.lowercased().utf8)
        guard !word.isEmpty, word.count <= 64 else { return nil }
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(word, Array(candidate.lowercased().utf8))
            if distance <= max(1, word.count / 3), distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// The text to append to a message: ` (did you mean "x"?)` or nothing.
    public static func hint(for word: String, among candidates: some Sequence<String>) -> String {
        closest(to: word, among: candidates).map { " (did you mean \"\($0)\"?)" } ?? ""
    }

    /// Edits from `a` to `b`: a letter added, removed or changed, or two neighbours swapped
    /// (`prdo` is one from `prod`, as a typist slips).
    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard b.count <= 256 else { return .max }
        var beforePrevious: [Int] = []
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                var distance = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
                if i > 0, j > 0, x == b[j - 1], a[i - 1] == y { distance = Swift.min(distance, beforePrevious[j - 1] + 1) }
                current.append(distance)
            }
            beforePrevious = previous
            previous = current
        }
        return previous[b.count]
    }
}
