// Fuzzes what the middle layer reads from servers and files: a Retry-After value, a disk cache
// entry's metadata, a response body checked against a JSON shape, a URL matched against mock
// rules and canonicalised into a cache key. None may crash or hang, and the key must not depend
// on the order of the query's parameters.
@testable import CurlewAgent
import Foundation
import FuzzSupport

@_cdecl("FuzzPipeline_main")
public func fuzzPipelineMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzPipeline)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeline(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    // Built per input: a global indirect enum's boxes read as leaks to LeakSanitizer.
    let shape = JSONShape.object([
        "data": .array(.object(["id": .integer, "name": .optional(.string), "tags": .array(.string)])),
        "code": .number,
    ])
    let rules = [
        MockRule("GET /users/*", .redirect), MockRule("* /a/**/z", .redirect), MockRule("POST /**", .redirect),
        MockRule("GET " + String(repeating: "*a", count: 16), .redirect),
    ]
    let data = Data(bytes: start, count: count)
    let text = String(decoding: data, as: UTF8.self)
    _ = RetryPolicy.retryAfterDelay(text, now: Date(timeIntervalSince1970: 1_800_000_000))
    _ = try? JSONDecoder().decode(CacheEntry.Metadata.self, from: data)
    if let json = try? JSONValue.parse(data) {
        do { try shape.validate(json) } catch {
            guard error.kind == .validationFailed, error.message.hasPrefix("$") else { fatalError("shape error without a path: \(error)") }
        }
    }
    let url = "http://h.test/" + text
    for rule in rules { _ = rule.matches(method: "GET", url: url) }
    let pairs = data.split(separator: UInt8(ascii: "&")).map { String(decoding: $0, as: UTF8.self) }
    let forward = RequestKey.canonicalURL("http://h.test/p?" + pairs.joined(separator: "&"), isVolatileParam: { $0 == "ts" })
    let backward = RequestKey.canonicalURL("http://h.test/p?" + pairs.reversed().joined(separator: "&"), isVolatileParam: { $0 == "ts" })
    // A fragment ends the query wherever it lands, so reordering around one may change the key.
    // Looked for by byte: a combining mark after `#` makes it part of another Character.
    guard forward == backward || data.contains(UInt8(ascii: "#")) else { fatalError("cache key depends on parameter order: \(forward) vs \(backward)") }
    return 0
}
