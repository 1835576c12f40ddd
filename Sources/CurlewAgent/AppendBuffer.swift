import Foundation
import CurlewTransport

/// Bytes appended by plain memory copies into one growing allocation: what the session record
/// writer writes into, and what the logger hands to `write` as it is. An `Array` append checks
/// uniqueness and capacity through generic code per call, which cost more than the bytes.
final class AppendBuffer {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private(set) var capacity: Int
    private let initialCapacity: Int

    init(capacity: Int = 4096) {
        initialCapacity = max(64, capacity)
        self.capacity = initialCapacity
        base = .allocate(capacity: initialCapacity)
    }

    deinit {
        base.deallocate()
    }

    /// The bytes appended so far, valid until the next change.
    var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base, count: count)
    }

    /// A copy of the bytes appended so far.
    var array: [UInt8] {
        Array(UnsafeBufferPointer(start: base, count: count))
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: count + 1) }
        base[count] = byte
        count += 1
    }

    /// Appends `length` bytes from `source`, which must not point into this buffer (growing
    /// frees the old allocation).
    @inline(__always)
    func append(_ source: UnsafeRawPointer, count length: Int) {
        guard length > 0 else { return }
        if count + length > capacity { grow(toHold: count + length) }
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: length)
        count += length
    }

    func append(_ source: UnsafeRawBufferPointer) {
        guard let start = source.baseAddress else { return }
        append(start, count: source.count)
    }

    func append(_ text: StaticString) {
        append(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    func append(contentsOf text: String) {
        text.withUTF8Bytes { append(UnsafeRawBufferPointer($0)) }
    }

    /// Room for `length` more bytes at the end, to fill and then `commit`.
    @inline(__always)
    func reserve(_ length: Int) -> UnsafeMutablePointer<UInt8> {
        if count + length > capacity { grow(toHold: count + length) }
        return base + count
    }

    /// Counts `length` bytes written into the room `reserve` gave.
    @inline(__always)
    func commit(_ length: Int) {
        count += length
    }

    /// Empties the buffer. An allocation that grew far past the first size (one huge record) is
    /// given back, so a single large entry does not hold its memory for the rest of the session.
    func removeAll() {
        count = 0
        if capacity > max(initialCapacity, 1 << 20) * 4 {
            base.deallocate()
            capacity = initialCapacity
            base = .allocate(capacity: capacity)
        }
    }

    private func grow(toHold needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}
