import CurlewAgent

/// A summary filter evaluated on an index's columns. Terms on the method or the URL are decided
/// once per distinct string (through `MessageFilter.matches`, so the index and a decoded log
/// always agree) and remembered by the string's number; numeric terms read their column.
/// An entry whose value is only on its line (`EntryBlock.unknown`) answers nil, and the caller
/// decides it from the line's summary.
///
/// Built for one pass over the index, on one thread.
final class ColumnFilter {
    private indirect enum Term {
        case method(Memo)
        case url(Memo)
        case status(ClosedRange<Int>)
        case failed
        case duration(MessageFilter.Comparison, Int64)
        case size(MessageFilter.Comparison, Int64)
        case not(Term)
        case and(Term, Term)
        case or(Term, Term)
    }

    /// A string term's answers by string number: 0 not yet asked, 1 no, 2 yes.
    private final class Memo {
        let decide: (UInt32) -> Bool
        var answers: [UInt8] = []

        init(_ decide: @escaping (UInt32) -> Bool) {
            self.decide = decide
        }

        func answer(_ id: UInt32) -> Bool {
            let position = Int(id)
            if position >= answers.count { answers += repeatElement(0, count: position + 1 - answers.count) }
            if answers[position] == 0 { answers[position] = decide(id) ? 2 : 1 }
            return answers[position] == 2
        }
    }

    private let term: Term

    /// nil when the filter needs more than summaries (headers, bodies).
    init?(_ filter: MessageFilter, methods: InternedStrings, urls: InternedStrings) {
        guard let term = Self.compile(filter, methods: methods, urls: urls) else { return nil }
        self.term = term
    }

    /// The term tree; nil when a term needs headers or bodies.
    private static func compile(_ filter: MessageFilter, methods: InternedStrings, urls: InternedStrings) -> Term? {
        func probe(method: String = "", url: String = "") -> SessionRecordSummary {
            SessionRecordSummary(requestID: 0, statusCode: 0, elapsedMicros: nil, responseSize: nil, failed: false, method: method, url: url)
        }
        switch filter {
        case .method: return .method(Memo { filter.matches(probe(method: methods.value($0))) })
        case .url, .urlContains, .domain: return .url(Memo { filter.matches(probe(url: urls.value($0))) })
        case .status(let range): return .status(range)
        case .failed: return .failed
        case .duration(let comparison, let limit): return .duration(comparison, limit)
        case .size(let comparison, let limit): return .size(comparison, limit)
        case .header, .body: return nil
        case .not(let inner): return compile(inner, methods: methods, urls: urls).map { .not($0) }
        case .and(let left, let right), .or(let left, let right):
            guard let left = compile(left, methods: methods, urls: urls), let right = compile(right, methods: methods, urls: urls) else { return nil }
            if case .and = filter { return .and(left, right) }
            return .or(left, right)
        }
    }

    /// Whether entry `position` of `block` matches; nil when a value it needs is on its line only.
    func matches(_ block: EntryBlock, _ position: Int) -> Bool? {
        evaluate(term, block, position)
    }

    private func evaluate(_ term: Term, _ block: EntryBlock, _ position: Int) -> Bool? {
        switch term {
        case .method(let memo):
            let method = block.methods[position] & ~EntryBlock.failedBit
            return method == EntryBlock.methodUnknown ? nil : memo.answer(UInt32(method))
        case .url(let memo):
            let url = block.urls[position]
            return url == EntryBlock.unknown ? nil : memo.answer(url)
        case .status(let range):
            let status = block.statuses[position]
            return status == EntryBlock.statusUnknown ? nil : status > 0 && range.contains(Int(status))
        case .failed:
            return block.methods[position] & EntryBlock.failedBit != 0
        case .duration(let comparison, let limit):
            return Self.compare(block.elapsed[position], comparison, limit)
        case .size(let comparison, let limit):
            return Self.compare(block.sizes[position], comparison, limit)
        case .not(let inner):
            return evaluate(inner, block, position).map { !$0 }
        case .and(let left, let right):
            // false on either side decides, whatever the other side could not.
            let first = evaluate(left, block, position)
            if first == false { return false }
            let second = evaluate(right, block, position)
            if second == false { return false }
            return first == nil || second == nil ? nil : true
        case .or(let left, let right):
            let first = evaluate(left, block, position)
            if first == true { return true }
            let second = evaluate(right, block, position)
            if second == true { return true }
            return first == nil || second == nil ? nil : false
        }
    }

    private static func compare(_ stored: UInt32, _ comparison: MessageFilter.Comparison, _ limit: Int64) -> Bool? {
        switch stored {
        case EntryBlock.absent: false
        case EntryBlock.unknown: nil
        default: comparison.holds(Int64(stored), limit)
        }
    }
}
