import CurlewAgent
import CurlewLocking
import CurlewTestSupport
import Foundation
import Testing

@Suite("Response cache against the demo server")
struct CacheTests {
    @Test("cacheElseNetwork: a fresh entry answers without the network and says so")
    func freshHit() async throws {
        let agent = try await pipelineAgent { $0.cache = CacheSettings(storage: .memory, policy: .cacheElseNetwork) }
        let tag = uniqueTag()
        let first = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tag)"))
        let second = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tag)"))
        #expect(try await serverCount(tag) == 1)
        #expect(first.message?.pipeline?.cache == [.miss, .stored])
        #expect(second.message?.pipeline?.cache == [.freshHit])
        #expect(second.message?.pipeline?.source == .cache)
        #expect(second.message?.timings == nil)
        #expect(second.message?.sent == nil)
        let response = try second.result.get()
        #expect(response.source == .cache)
        #expect(try response.json()["served"] == .int(1))
    }

    @Test("by time: an expired entry is stale and the network answers again")
    func expiry() async throws {
        let agent = try await pipelineAgent { $0.cache = CacheSettings(storage: .memory, timeToLive: .milliseconds(150)) }
        let tag = uniqueTag()
        _ = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tag)"))
        try await Task.sleep(for: .milliseconds(250))
        let again = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tag)"))
        #expect(try await serverCount(tag) == 2)
        #expect(again.message?.pipeline?.cache.first == .stale)
    }

    @Test("by version: an entry stored under another version is not used")
    func versioned() async throws {
        let directory = temporaryDirectory()
        let tag = uniqueTag()
        let old = try await pipelineAgent { $0.cache = CacheSettings(storage: .disk, directory: directory, version: "app-1") }
        _ = await sendCapturing(old, Request(.get, "/cache/60?tag=\(tag)"))
        let sameVersion = try await pipelineAgent { $0.cache = CacheSettings(storage: .disk, directory: directory, version: "app-1") }
        let hit = await sendCapturing(sameVersion, Request(.get, "/cache/60?tag=\(tag)"))
        #expect(hit.message?.pipeline?.cache == [.freshHit])
        let newVersion = try await pipelineAgent { $0.cache = CacheSettings(storage: .disk, directory: directory, version: "app-2") }
        let miss = await sendCapturing(newVersion, Request(.get, "/cache/60?tag=\(tag)"))
        #expect(miss.message?.pipeline?.cache == [.miss, .stored])
        #expect(try await serverCount(tag) == 2)
    }

    @Test("cacheThenNetwork delivers the cached copy first, then the network's answer, each marked")
    func cacheThenNetwork() async throws {
        let agent = try await pipelineAgent { $0.cache = CacheSettings(storage: .memory, policy: .cacheThenNetwork) }
        let tag = uniqueTag()
        _ = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tag)"))
        let deliveries = Locked<[PipelineRecord.Source]>([])
        let final = await withCheckedContinuation { (continuation: CheckedContinuation<Response, Never>) in
            agent.start(Request(.get, "/cache/60?tag=\(tag)"), callbacks: RequestCallbacks(
                success: { response in
                    deliveries.withLock { $0.append(response.source) }
                    continuation.resume(returning: response)
                },
                cached: { response in deliveries.withLock { $0.append(response.source) } }
            ))
        }
        #expect(deliveries.withLock { $0 } == [.cache, .network])
        #expect(try final.json()["served"] == .int(2))
        #expect(try await serverCount(tag) == 2)
    }

    @Test("revalidate sends the entry's validators and treats 304 as a hit")
    func revalidate() async throws {
        let agent = try await pipelineAgent { $0.cache = CacheSettings(storage: .memory, policy: .revalidate) }
        let tag = uniqueTag()
        _ = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tag)"))
        let second = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tag)"))
        let received = try await TestServer.shared().receivedRequests.filter { $0.uri.contains(tag) }
        #expect(received.count == 2)
        #expect(received.last?.header("If-None-Match") == "\"cache-60-1\"")
        #expect(received.last?.header("If-Modified-Since") == "Thu, 01 Jan 2026 00:00:00 GMT")
        let response = try second.result.get()
        #expect(response.statusCode == 200)
        #expect(try response.json()["served"] == .int(1))
        #expect(second.message?.pipeline?.cache.contains(.revalidated) == true)
        #expect(second.message?.response?.statusCode == 304)
    }

    @Test("Cache-Control: no-store is respected, and ignoreCache bypasses the cache")
    func noStoreAndIgnore() async throws {
        let agent = try await pipelineAgent { $0.cache = CacheSettings(storage: .memory) }
        let tag = uniqueTag()
        let first = await sendCapturing(agent, Request(.get, "/cache/60?store=no&tag=\(tag)"))
        #expect(first.message?.pipeline?.cache == [.miss, .notStored])
        _ = await sendCapturing(agent, Request(.get, "/cache/60?store=no&tag=\(tag)"))
        #expect(try await serverCount(tag) == 2)

        let other = uniqueTag()
        _ = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(other)"))
        var ignoring = Request(.get, "/cache/60?tag=\(other)")
        ignoring.cache = CacheOptions(ignoreCache: true)
        let ignored = await sendCapturing(agent, ignoring)
        #expect(ignored.message?.pipeline?.cache == [.ignored])
        #expect(try await serverCount(other) == 2)
    }

    @Test("the key sorts query parameters and drops volatile ones")
    func keyCanonical() async throws {
        let agent = try await pipelineAgent { $0.cache = CacheSettings(storage: .memory) }
        let tag = uniqueTag()
        _ = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tag)&b=2&a=1&ts=100"))
        let hit = await sendCapturing(agent, Request(.get, "/cache/60?a=1&ts=200&b=2&tag=\(tag)"))
        #expect(hit.message?.pipeline?.cache == [.freshHit])
        #expect(try await serverCount(tag) == 1)
    }

    @Test("disk entries are owner-only; a corrupt or truncated entry is a miss, not an error")
    func corruptEntry() async throws {
        let directory = temporaryDirectory()
        let agent = try await pipelineAgent { $0.cache = CacheSettings(storage: .disk, directory: directory) }
        let tag = uniqueTag()
        _ = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tag)"))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files.filter { $0.hasSuffix(".meta") }.count == 1)
        for file in files {
            let mode = try FileManager.default.attributesOfItem(atPath: directory + "/" + file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file)")
        }
        let directoryMode = try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int
        #expect(directoryMode == 0o700 || directoryMode == 0o755)
        let body = try #require(files.first { $0.hasSuffix(".body") })
        try Data("{\"tru".utf8).write(to: URL(fileURLWithPath: directory + "/" + body))
        let fresh = try await pipelineAgent { $0.cache = CacheSettings(storage: .disk, directory: directory) }
        let afterCorruption = await sendCapturing(fresh, Request(.get, "/cache/60?tag=\(tag)"))
        #expect(afterCorruption.message?.pipeline?.cache == [.miss, .stored])
        #expect(try afterCorruption.result.get().statusCode == 200)
        let meta = try #require(try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".meta") })
        try Data("not json".utf8).write(to: URL(fileURLWithPath: directory + "/" + meta))
        let third = try await pipelineAgent { $0.cache = CacheSettings(storage: .disk, directory: directory) }
        let afterGarbage = await sendCapturing(third, Request(.get, "/cache/60?tag=\(tag)"))
        #expect(afterGarbage.message?.pipeline?.cache == [.miss, .stored])
        #expect(try await serverCount(tag) == 3)
    }

    @Test("the disk store stays under its bound, evicting the least recently used entry")
    func eviction() async throws {
        let tags = (0..<3).map { _ in uniqueTag() }
        // One entry's size, measured in a store of its own, sets a bound of two and a half entries.
        let probe = try await pipelineAgent { $0.cache = CacheSettings(storage: .disk, directory: temporaryDirectory()) }
        _ = await sendCapturing(probe, Request(.get, "/cache/60?tag=\(uniqueTag())"))
        let entrySize = try #require(probe.cache).diskBytes
        #expect(entrySize > 0)
        let bound = entrySize * 5 / 2
        let agent = try await pipelineAgent { $0.cache = CacheSettings(storage: .disk, directory: temporaryDirectory(), maxDiskBytes: bound) }
        _ = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tags[0])"))
        _ = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tags[1])"))
        // Touch the first, so the second is the least recently used.
        _ = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tags[0])"))
        _ = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tags[2])"))
        #expect(try #require(agent.cache).diskBytes <= bound)
        let first = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tags[0])"))
        let second = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tags[1])"))
        #expect(first.message?.pipeline?.cache == [.freshHit])
        #expect(second.message?.pipeline?.cache == [.miss, .stored])
    }

    @Test("a request without any middle-layer feature carries no pipeline record")
    func plainRequestHasNoRecord() async throws {
        let agent = try await pipelineAgent()
        let plain = await sendCapturing(agent, Request(.get, "/get"))
        #expect(plain.message?.pipeline == nil)
    }
}
