import Foundation
import Synchronization

/// The text a `JSONDecoder` is decoding, for reading the `JSONValue`s in it from the text parsed
/// once by Curlew's own parser instead of through `Codable`, which cannot ask what kind a value
/// is: `JSONValue(from:)` would try each kind in turn, each miss an error that copies the
/// coding path (a log line's `params` nested hundreds deep, or millions of values long, took
/// minutes), and it would read an object's members in hash order. Put into a decoder's
/// `userInfo` under `userInfoKey` by `SessionLogFormat.decode`; the text is parsed when its
/// first `JSONValue` that is not `null` is read.
public final class JSONValueSource: Sendable {
    public static let userInfoKey = CodingUserInfoKey(rawValue: "curlew.jsonValueSource")!

    private let text: Data
    private let parsed = Mutex<Result<JSONValue, JSONSyntaxError>?>(nil)

    public init(_ text: Data) {
        self.text = text
    }

    /// The value at `path` in the text (of a name given twice, the first, as `JSONDecoder`
    /// reads the members on the path).
    func value(at path: [any CodingKey]) throws -> JSONValue {
        let result = parsed.withLock { parsed in
            if let parsed { return parsed }
            let result = Result { () throws(JSONSyntaxError) in try JSONValue.parse(text) }
            parsed = result
            return result
        }
        var value: JSONValue
        switch result {
        case .success(let root): value = root
        case .failure(let error): throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: error.description))
        }
        for key in path {
            switch value {
            case .array(let elements):
                guard let index = key.intValue, elements.indices.contains(index) else { throw Self.missing(path) }
                value = elements[index]
            case .object(let members):
                guard let member = members.first(where: { $0.key == key.stringValue }) else { throw Self.missing(path) }
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
