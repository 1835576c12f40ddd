@testable import CurlewAgent
import Foundation
import Testing

@Suite("Base64 as the session log writes it")
struct Base64TextTests {
    @Test("every length up to 300 bytes, every byte value and a 4 KiB body encode as Foundation encodes them")
    func matchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        var inputs = (0...300).map { length in (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        inputs.append(Array(0...255))
        inputs.append((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        for input in inputs {
            let length = Base64Text.encodedLength(of: input.count)
            var output = [UInt8](repeating: 0, count: length)
            input.withUnsafeBytes { bytes in
                output.withUnsafeMutableBufferPointer { Base64Text.encode(bytes, into: $0.baseAddress!) }
            }
            #expect(String(decoding: output, as: UTF8.self) == Data(input).base64EncodedString(), "\(input.count) bytes")
        }
    }
}
