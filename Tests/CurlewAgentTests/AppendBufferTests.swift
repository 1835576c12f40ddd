@testable import CurlewAgent
import Testing

@Suite("Append buffer")
struct AppendBufferTests {
    @Test("bytes, runs, literals and reserved room come out in order across many growths")
    func appendsInOrder() {
        let buffer = AppendBuffer(capacity: 1)
        var expected: [UInt8] = []
        for round in 0..<2_000 {
            let byte = UInt8(truncatingIfNeeded: round)
            buffer.append(byte)
            expected.append(byte)
            let run = [UInt8](repeating: byte &+ 1, count: round % 37)
            run.withUnsafeBytes { buffer.append($0) }
            expected += run
            buffer.append("ab" as StaticString)
            expected += Array("ab".utf8)
            let room = buffer.reserve(3)
            room[0] = 1; room[1] = 2
            buffer.commit(2)
            expected += [1, 2]
        }
        buffer.append(contentsOf: "é✓")
        expected += Array("é✓".utf8)
        #expect(buffer.array == expected)
        #expect(buffer.count == expected.count)
    }

    @Test("runs of every length up to 40, all bytes distinct, land whole and in place whatever the buffer's fill")
    func runsOfEveryLength() {
        for fill in 0..<9 {
            let buffer = AppendBuffer(capacity: 64)
            var expected = [UInt8](repeating: 0xEE, count: fill)
            expected.withUnsafeBytes { buffer.append($0) }
            for length in 0...40 {
                let run = (0..<length).map { UInt8(truncatingIfNeeded: length * 41 + $0 + 1) }
                run.withUnsafeBytes { buffer.append($0) }
                expected += run
            }
            #expect(buffer.array == expected, "fill \(fill)")
        }
    }

    @Test("emptying keeps nothing, and a buffer grown by one huge record is given back")
    func removeAll() {
        let buffer = AppendBuffer(capacity: 16)
        let huge = [UInt8](repeating: 7, count: 5 << 20)
        huge.withUnsafeBytes { buffer.append($0) }
        #expect(buffer.capacity >= 5 << 20)
        buffer.removeAll()
        #expect(buffer.count == 0)
        #expect(buffer.capacity == 64)
        buffer.append(9)
        #expect(buffer.array == [9])
    }
}
