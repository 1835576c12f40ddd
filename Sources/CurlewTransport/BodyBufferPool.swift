import Foundation
import CurlewLocking

/// Buffers for announced response bodies, handed out as `Data` without a copy. Large ones come
/// back when the last `Data` using them is gone.
///
/// A fresh allocation of a megabyte is mapped by the kernel page by page as it is first written:
/// a page fault every 4 KiB, zeroed pages, and the unmapping when it is freed. Large bodies are
/// therefore written into buffers from here, handed out as `Data` whose deallocator returns the
/// buffer, so the next large body lands in memory that is already mapped. A small body gets a
/// buffer of exactly its size, freed with its `Data`: written once, with none of the growing and
/// checking `Data.append` does.
final class BodyBufferPool: Sendable {
    /// Bodies announced at least this large use the pool; smaller ones a buffer of their own.
    static let minimumSize = 128 << 10

    /// A buffer's address and capacity. Owned by whoever took it until it is given back.
    struct Buffer: @unchecked Sendable {
        let address: UnsafeMutableRawPointer
        let capacity: Int
    }

    private struct Idle {
        var buffers: [Int: [Buffer]] = [:]
        var bytes = 0
    }

    private let idle = Locked(Idle())
    private let maxIdleBytes: Int
    private let maxIdlePerSize: Int

    init(maxIdleBytes: Int = 32 << 20, maxIdlePerSize: Int = 32) {
        self.maxIdleBytes = maxIdleBytes
        self.maxIdlePerSize = maxIdlePerSize
    }

    deinit {
        for buffers in idle.withLock({ $0.buffers.values }) {
            for buffer in buffers { buffer.address.deallocate() }
        }
    }

    /// A buffer of at least `byteCount` bytes: for a large body, the next power of two, so bodies
    /// of similar sizes share buffers; for a small one, exactly its size.
    func take(atLeast byteCount: Int) -> Buffer {
        guard byteCount >= Self.minimumSize else {
            guard let address = malloc(max(byteCount, 1)) else { fatalError("out of memory for a \(byteCount)-byte body") }
            return Buffer(address: address, capacity: byteCount)
        }
        let capacity = Self.sizeClass(of: byteCount)
        if let reused = idle.withLock({ idle -> Buffer? in
            guard let buffer = idle.buffers[capacity]?.popLast() else { return nil }
            idle.bytes -= capacity
            return buffer
        }) {
            return reused
        }
        return Buffer(address: .allocate(byteCount: capacity, alignment: 16), capacity: capacity)
    }

    /// Keeps the buffer for reuse, or frees it when the pool already holds enough (or it is small).
    func give(_ buffer: Buffer) {
        guard buffer.capacity >= Self.minimumSize else {
            free(buffer.address)
            return
        }
        let kept = idle.withLock { idle -> Bool in
            guard idle.bytes + buffer.capacity <= maxIdleBytes, idle.buffers[buffer.capacity, default: []].count < maxIdlePerSize else {
                return false
            }
            idle.buffers[buffer.capacity, default: []].append(buffer)
            idle.bytes += buffer.capacity
            return true
        }
        if !kept { buffer.address.deallocate() }
    }

    /// The first `count` bytes of `buffer` as `Data`, without copying. When that `Data` and every
    /// copy of it are gone, a large buffer comes back to the pool and a small one is freed.
    func data(_ buffer: Buffer, count: Int) -> Data {
        guard buffer.capacity >= Self.minimumSize else { return Data(bytesNoCopy: buffer.address, count: count, deallocator: .free) }
        return Data(bytesNoCopy: buffer.address, count: count, deallocator: .custom { [self] _, _ in give(buffer) })
    }

    /// Buffers idle in the pool now.
    var idleCount: Int {
        idle.withLock { $0.buffers.values.reduce(0) { $0 + $1.count } }
    }

    static func sizeClass(of byteCount: Int) -> Int {
        var capacity = minimumSize
        while capacity < byteCount { capacity <<= 1 }
        return capacity
    }
}
