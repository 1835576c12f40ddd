@testable import CurlewAgent
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

    @Test("the demo server's per-path counter sees the one request a fresh hit saved")
    func counter() async throws {
        let agent = try await pipelineAgent { $0.cache = CacheSettings(storage: .memory) }
        let path = "/cache/\(Int.random(in: 1_000...86_400))"
        for _ in 0..<3 { _ = try await agent.send(Request(.get, path)) }
        let plain = try await pipelineAgent()
        let count = try await plain.send(Request(.get, "/counter", params: ["path": .string(path)])).json()
        #expect(count["hits"] == .int(1))
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
        // The test made it 0755; the store closed it.
        let directoryMode = try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)
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

@Suite("Response cache: what it must not do")
struct CacheSafetyTests {
    @Test("only GET and HEAD are cached; a successful POST to the URL removes its entries, also when the request's own checks fail it")
    func unsafeMethods() async throws {
        let agent = try await pipelineAgent { $0.cache = CacheSettings(storage: .memory) }
        let tag = uniqueTag()
        _ = try await agent.send(Request(.get, "/anything?tag=\(tag)"))
        let hit = await sendCapturing(agent, Request(.get, "/anything?tag=\(tag)"))
        #expect(hit.message?.pipeline?.cache == [.freshHit])
        let delete = await sendCapturing(agent, Request(.delete, "/anything?tag=\(tag)"))
        #expect(delete.message?.pipeline?.cache == [.invalidated])
        _ = await sendCapturing(agent, Request(.delete, "/anything?tag=\(tag)"))
        let received = try await TestServer.shared().receivedRequests.filter { $0.uri.contains(tag) }.map(\.method)
        #expect(received == ["GET", "DELETE", "DELETE"])
        let afterDelete = await sendCapturing(agent, Request(.get, "/anything?tag=\(tag)"))
        #expect(afterDelete.message?.pipeline?.cache == [.miss, .stored])
        // A 2xx the request's own checks then fail (a chain step's capture finding nothing)
        // still took effect on the server: the entries go all the same (found by review).
        var checked = Request(.delete, "/anything?tag=\(tag)")
        checked.validation.captures = [Capture("id", from: .jsonPath("$.nope"))]
        let failedCheck = await sendCapturing(agent, checked)
        #expect(failedCheck.message?.error?.kind == .captureFailed)
        #expect(failedCheck.message?.pipeline?.cache == [.invalidated])
        let afterFailedCheck = await sendCapturing(agent, Request(.get, "/anything?tag=\(tag)"))
        #expect(afterFailedCheck.message?.pipeline?.cache == [.miss, .stored])
    }

    @Test("a response fetched with one user's credentials is not served to another")
    func credentials() async throws {
        let agent = try await pipelineAgent { $0.cache = CacheSettings(storage: .memory) }
        let tag = uniqueTag()
        _ = try await agent.send(Request(.get, "/cache/60?tag=\(tag)", headers: ["Authorization": "Bearer alice"]))
        let bob = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tag)", headers: ["Authorization": "Bearer bob"]))
        #expect(bob.message?.pipeline?.cache == [.miss, .stored])
        let alice = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tag)", headers: ["Authorization": "Bearer alice"]))
        #expect(alice.message?.pipeline?.cache == [.freshHit])
    }

    @Test("a directory others can write, or a symbolic link, turns the disk store off and says why")
    func unsafeDirectory() async throws {
        let open = temporaryDirectory()
        chmod(open, 0o777)
        let agent = try await pipelineAgent { $0.cache = CacheSettings(storage: .disk, directory: open) }
        let tag = uniqueTag()
        let first = await sendCapturing(agent, Request(.get, "/cache/60?tag=\(tag)"))
        #expect(try first.result.get().statusCode == 200)
        #expect(first.message?.pipeline?.notes.first?.contains("is open to other users") == true)
        #expect(first.message?.pipeline?.cache == [.miss, .storeFailed])
        #expect(try FileManager.default.contentsOfDirectory(atPath: open).isEmpty)

        let real = temporaryDirectory()
        let link = temporaryDirectory() + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let linked = try await pipelineAgent { $0.cache = CacheSettings(storage: .disk, directory: link) }
        let second = await sendCapturing(linked, Request(.get, "/cache/60?tag=\(tag)"))
        #expect(second.message?.pipeline?.notes.first?.contains("symbolic link") == true)
        // A trailing `/` or `/.` makes `lstat` follow the link; the check still sees it (found by a new user's trial).
        for written in [link + "/", link + "/.", link + "//./"] {
            let trailing = try await pipelineAgent { $0.cache = CacheSettings(storage: .disk, directory: written) }
            let third = await sendCapturing(trailing, Request(.get, "/cache/60?tag=\(tag)"))
            #expect(third.message?.pipeline?.notes.first?.contains("symbolic link") == true, "\(written)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: real).isEmpty)
        #expect(DiskCacheStore.withoutTrailingSeparators("/") == "/" && DiskCacheStore.withoutTrailingSeparators("a/b/./") == "a/b")
    }

    /// Neither half depends on how fast the machine runs: the fresh entry has a minute to live
    /// (a 4-second lifetime failed on a loaded CI host), and a slower machine only makes the
    /// short-lived one staler.
    @Test("a disk entry expires by time across restarts (its dates read back as written)")
    func diskExpiry() async throws {
        let directory = temporaryDirectory()
        let (lasting, brief) = (uniqueTag(), uniqueTag())
        let minute = CacheSettings(storage: .disk, directory: directory, timeToLive: .seconds(60))
        let second = CacheSettings(storage: .disk, directory: directory, timeToLive: .seconds(1))
        _ = try await pipelineAgent { $0.cache = minute }.send(Request(.get, "/cache/60?tag=\(lasting)"))
        _ = try await pipelineAgent { $0.cache = second }.send(Request(.get, "/cache/60?tag=\(brief)"))
        let metas = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".meta") }
        let lifetimes = try metas.map { name -> Double in
            let record = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))) as? [String: Any]
            let stored = try #require(record?["storedAt"] as? Double), expires = try #require(record?["expiresAt"] as? Double)
            return ((expires - stored) / 1_000).rounded()
        }
        #expect(lifetimes.sorted() == [1, 60])
        try await Task.sleep(for: .milliseconds(1_200))
        // A restarted agent whose own lifetime is a minute: what counts is each entry's written expiry.
        let restarted = try await pipelineAgent { $0.cache = minute }
        #expect(await sendCapturing(restarted, Request(.get, "/cache/60?tag=\(lasting)")).message?.pipeline?.cache == [.freshHit])
        #expect(await sendCapturing(restarted, Request(.get, "/cache/60?tag=\(brief)")).message?.pipeline?.cache.first == .stale)
    }

    @Test("a FIFO planted for an entry, or an entry edited into a non-2xx, is a miss without a hang")
    func plantedEntries() async throws {
        let directory = temporaryDirectory()
        let tag = uniqueTag()
        let settings = CacheSettings(storage: .disk, directory: directory)
        _ = try await pipelineAgent { $0.cache = settings }.send(Request(.get, "/cache/60?tag=\(tag)"))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        let body = directory + "/" + (try #require(files.first { $0.hasSuffix(".body") }))
        let meta = directory + "/" + (try #require(files.first { $0.hasSuffix(".meta") }))
        let original = try String(contentsOfFile: meta, encoding: .utf8)
        try FileManager.default.removeItem(atPath: body)
        #expect(mkfifo(body, 0o600) == 0)
        let afterFIFO = await sendCapturing(try await pipelineAgent { $0.cache = settings }, Request(.get, "/cache/60?tag=\(tag)"))
        #expect(afterFIFO.message?.pipeline?.cache == [.miss, .stored])
        let edited = try String(contentsOfFile: meta, encoding: .utf8).replacingOccurrences(of: "\"statusCode\":200", with: "\"statusCode\":500")
        #expect(edited != original || edited.contains("500"))
        try edited.write(toFile: meta, atomically: false, encoding: .utf8)
        let afterEdit = await sendCapturing(try await pipelineAgent { $0.cache = settings }, Request(.get, "/cache/60?tag=\(tag)"))
        #expect(afterEdit.message?.pipeline?.cache == [.miss, .stored])
        #expect(try await serverCount(tag) == 3)
    }

    @Test("an entry is named by the SHA-256 of its key, and one written in the FNV-1a format before it is a miss")
    func sha256Names() async throws {
        let directory = temporaryDirectory()
        let tag = uniqueTag()
        let settings = CacheSettings(storage: .disk, directory: directory)
        _ = try await pipelineAgent { $0.cache = settings }.send(Request(.get, "/cache/60?tag=\(tag)"))
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".meta") })
        #expect(name.count == 64 + 5 && name.dropLast(5).allSatisfy(\.isHexDigit))
        let meta = directory + "/" + name
        let record = try String(contentsOfFile: meta, encoding: .utf8)
        #expect(record.contains("\"format\":2"))
        try record.replacingOccurrences(of: "\"format\":2", with: "\"format\":1").write(toFile: meta, atomically: false, encoding: .utf8)
        let afterOldFormat = await sendCapturing(try await pipelineAgent { $0.cache = settings }, Request(.get, "/cache/60?tag=\(tag)"))
        #expect(afterOldFormat.message?.pipeline?.cache == [.miss, .stored])
        #expect(try await serverCount(tag) == 2)
    }

    @Test("stored metadata keeps no Set-Cookie and no URL password")
    func nothingSecretOnDisk() async throws {
        let directory = temporaryDirectory()
        let server = try await TestServer.shared()
        let agent = Agent(config: {
            var config = NetworkConfig()
            config.cache = CacheSettings(storage: .disk, directory: directory)
            return config
        }())
        let url = server.baseURL.replacingOccurrences(of: "http://", with: "http://ada:hunter2@") + "/cache/60?cookie=1&token=CacheTok9&tag=\(uniqueTag())"
        _ = try await agent.send(Request.url(url))
        let meta = try #require(try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".meta") })
        let text = try String(contentsOfFile: directory + "/" + meta, encoding: .utf8)
        #expect(!text.contains("hunter2"))
        #expect(!text.contains("CacheTok9"), "a secret query parameter is neither in the key nor in the stored URL: \(text)")
        #expect(!text.contains("demo-cache-cookie"))
        // A `Basic` password the URL repeats, from either credential header (found by review:
        // only `Authorization` was looked at).
        for name in ["Authorization", "Proxy-Authorization"] {
            let repeated = directory + "/" + name
            let cached = Agent(config: {
                var config = NetworkConfig()
                config.cache = CacheSettings(storage: .disk, directory: repeated)
                return config
            }())
            var request = Request.url(server.baseURL + "/cache/60?again=Pr0xyPass9&tag=\(uniqueTag())")
            request.headers[name] = "Basic " + Data("pa:Pr0xyPass9".utf8).base64EncodedString()
            _ = try await cached.send(request)
            let stored = try #require(try FileManager.default.contentsOfDirectory(atPath: repeated).first { $0.hasSuffix(".meta") })
            let storedText = try String(contentsOfFile: repeated + "/" + stored, encoding: .utf8)
            #expect(!storedText.contains("Pr0xyPass9"), "\(name): \(storedText)")
        }
    }
}
