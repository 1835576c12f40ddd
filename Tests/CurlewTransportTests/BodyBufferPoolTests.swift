@testable import CurlewTransport
import CurlewDemoServer
import CurlewTestSupport
import Foundation
import Testing

@Suite("Large response bodies and the buffer pool")
struct BodyBufferPoolTests {
    @Test("a buffer comes back when the last Data using it is gone, and is handed out again")
    func reuse() {
        let pool = BodyBufferPool()
        let buffer = pool.take(atLeast: 300_000)
        #expect(buffer.capacity == 512 << 10)
        buffer.address.storeBytes(of: 7, as: UInt8.self)
        var data: Data? = pool.data(buffer, count: 1000)
        var copy = data
        data = nil
        #expect(pool.idleCount == 0, "a copy still uses the buffer")
        #expect(copy?.first == 7)
        copy = nil
        #expect(pool.idleCount == 1)
        #expect(pool.take(atLeast: 400_000).address == buffer.address)
    }

    @Test("a small body gets a buffer of exactly its size, never kept by the pool")
    func smallBuffer() {
        let pool = BodyBufferPool()
        let buffer = pool.take(atLeast: 81)
        #expect(buffer.capacity == 81)
        for index in 0..<81 { buffer.address.storeBytes(of: UInt8(index), toByteOffset: index, as: UInt8.self) }
        let data = pool.data(buffer, count: 81)
        #expect(data == Data((0..<81).map(UInt8.init)))
        #expect(pool.idleCount == 0)
        pool.give(pool.take(atLeast: 0))
        #expect(pool.idleCount == 0)
    }

    @Test("the pool keeps a bounded number of idle buffers")
    func bounded() {
        let pool = BodyBufferPool(maxIdleBytes: 1 << 20, maxIdlePerSize: 8)
        let buffers = (0..<5).map { _ in pool.take(atLeast: 200_000) }
        buffers.forEach(pool.give)
        #expect(pool.idleCount == 4, "four 256 KiB buffers fill 1 MiB")
        #expect(BodyBufferPool.sizeClass(of: 1) == BodyBufferPool.minimumSize)
        #expect(BodyBufferPool.sizeClass(of: 1 << 20) == 1 << 20)
        #expect(BodyBufferPool.sizeClass(of: (1 << 20) + 1) == 2 << 20)
    }

    @Test("large bodies arrive intact, and an earlier body is untouched by a later one")
    func largeBodies() async throws {
        let server = try await TestServer.shared()
        let harness = EngineHarness()
        let first = await harness.run(TransferRequest(url: "\(server.baseURL)/bytes/300000?seed=1"))
        let second = await harness.run(TransferRequest(url: "\(server.baseURL)/bytes/300000?seed=2"))
        let third = await harness.run(TransferRequest(url: "\(server.baseURL)/bytes/700000?seed=3"))
        #expect(first.error == nil && second.error == nil && third.error == nil)
        #expect(first.responseBody == Data(DeterministicBytes.random(count: 300_000, seed: 1)))
        #expect(second.responseBody == Data(DeterministicBytes.random(count: 300_000, seed: 2)))
        #expect(third.responseBody == Data(DeterministicBytes.random(count: 700_000, seed: 3)))
        let head = await harness.run(TransferRequest(url: "\(server.baseURL)/bytes/300000", method: "HEAD"))
        #expect(head.error == nil && head.responseBody.isEmpty)
    }
}
