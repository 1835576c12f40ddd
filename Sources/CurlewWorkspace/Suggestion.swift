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

    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard b.count <= 256 else { return .max }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
