import CurlewAgent

extension DebugMessage {
    /// The request line and header fields as they went on the wire, or the composed request's
    /// headers when the message has no wire capture (a mocked or cached answer, an import).
    var sentRequestLine: String? {
        sent.flatMap { Self.lines(of: $0.head).first }
    }

    var sentHeaders: [HeaderField] {
        guard let head = sent?.head else { return original?.headers ?? [] }
        return Self.lines(of: head).dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return HeaderField(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }

    private static func lines(of head: String) -> [String] {
        head.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }).map(String.init)
    }
}
