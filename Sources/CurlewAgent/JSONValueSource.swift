import Foundation
import Synchronization

/// The text a `JSONDecoder` is decoding, for decoding `JSONValue`s in it without trying each
/// kind of value in turn. `Codable` cannot ask what kind a value is, so `JSONValue(from:)`
/// tries them, and each miss is an error that copies the coding path: a log line's `params`
/// nested hundreds deep, or millions of values long, took minutes. After `budget` misses in
/// one text, the text is parsed once (`JSONValue.parse`) and every `JSONValue` after that is read from
/// the parsed tree at its coding path. Put into a decoder's `userInfo` under `userInfoKey`
/// (`SessionLogFormat.decode`).
public final class JSONValueSource: Sendable {
    public static let userInfoKey = CodingUserInfoKey(rawValue: "curlew.jsonValueSource")!
    /// Misses allowed before the text is parsed: a record's usual values cost a few.
    static let budget = 64

    private let text: Data
    private struct State {
        var misses = 0
        /// The text parsed, once the misses ran out; a text our parser refuses stays nil with why.
        var parsed: JSONValue?
        var refusal: String?
    }
    private let state = Mutex(State())

    public init(_ text: Data) {
        self.text = text
    }

    /// Counts one miss; true once the budget is spent and the text parsed (or refused).
    func noteMiss() -> Bool {
        state.withLock { state in
            state.misses += 1
            guard state.misses > Self.budget, state.parsed == nil, state.refusal == nil else { return state.misses > Self.budget }
            do throws(JSONSyntaxError) { state.parsed = try JSONValue.parse(text) } catch { state.refusal = error.reason }
            return true
        }
    }

    /// Whether values are read from the parsed tree now.
    var isParsed: Bool { state.withLock { $0.parsed != nil || $0.refusal != nil } }

    /// The value at `path` in the parsed text (the last member of a name given twice, as the
    /// decoder reads it).
    func value(at path: [any CodingKey]) throws -> JSONValue {
        let (parsed, refusal) = state.withLock { ($0.parsed, $0.refusal) }
        guard var value = parsed else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: refusal ?? "the text could not be read"))
        }
        for key in path {
            switch value {
            case .array(let elements):
                guard let index = key.intValue, elements.indices.contains(index) else { throw Self.missing(path) }
                value = elements[index]
            case .object(let members):
                guard let member = members.last(where: { $0.key == key.stringValue }) else { throw Self.missing(path) }
                value = member.value
            default:
                throw Self.missing(path)
            }
        }
        return value
    }

    private static func missing(_ path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: "no value at this path in the parsed text"))
    }
}
