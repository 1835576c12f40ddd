import CurlewAgent
import CurlewTestSupport
import Foundation
import Testing

@Suite("Cookie jar")
struct CookieTests {
    @Test("cookies a response sets are sent on the redirect and on later requests, and listed with their attributes")
    func roundTrip() async throws {
        let agent = try await pipelineAgent { $0.cookies.enabled = true }
        let setting = try await agent.send(Request(.get, "/cookies/set?session=abc123&theme=dark&max_age=120"))
        #expect(try setting.json()["cookies"]?["session"] == .string("abc123"), "set on the redirect, sent on its next hop")
        let later = try await agent.send(Request(.get, "/cookies"))
        #expect(try later.json()["cookies"]?["theme"] == .string("dark"))
        let cookies = await agent.cookies().sorted { $0.name < $1.name }
        #expect(cookies.map(\.name) == ["session", "theme"])
        let session = try #require(cookies.first)
        #expect(session.domain == "127.0.0.1")
        #expect(session.path == "/")
        #expect(session.httpOnly)
        #expect(!session.secure)
        let expiry = try #require(session.expires)
        #expect(expiry > Date().addingTimeInterval(60) && expiry < Date().addingTimeInterval(180))

        _ = try await agent.send(Request(.get, "/cookies/delete?theme"))
        #expect(await agent.cookies().map(\.name) == ["session"])
        await agent.clearCookies()
        #expect(await agent.cookies().isEmpty)
        #expect(try await agent.send(Request(.get, "/cookies")).json()["cookies"] == .object([]))
    }

    @Test("off by default, and per request")
    func off() async throws {
        let agent = try await pipelineAgent()
        _ = try await agent.send(Request(.get, "/cookies/set?flavour=oat"))
        #expect(try await agent.send(Request(.get, "/cookies")).json()["cookies"] == .object([]))
        #expect(await agent.cookies().isEmpty)
        var opted = Request(.get, "/cookies/set?flavour=oat")
        opted.usesCookies = true
        _ = try await agent.send(opted)
        #expect(await agent.cookies().map(\.name) == ["flavour"])
    }

    @Test("the jar persists to an owner-only file and a new agent starts with it")
    func persisted() async throws {
        let path = NSTemporaryDirectory() + "curlew-jar-\(uniqueTag()).txt"
        defer { unlink(path) }
        let first = try await pipelineAgent { $0.cookies = CookieSettings(enabled: true, jarFile: path) }
        _ = try await first.send(Request(.get, "/cookies/set?token=persist-me&max_age=600"))
        _ = try await first.send(Request(.get, "/cookies/set?visit=once"))
        try await first.saveCookies()
        let mode = try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("# Netscape HTTP Cookie File"))
        #expect(text.contains("\ttoken\tpersist-me"))

        let second = try await pipelineAgent { $0.cookies = CookieSettings(enabled: true, jarFile: path) }
        let cookies = try await second.send(Request(.get, "/cookies")).json()["cookies"]
        #expect(cookies?["token"] == .string("persist-me"))
        #expect(cookies?["visit"] == .string("once"), "a session cookie saved in the jar comes back too")
    }

    @Test("an agent that was shut down still lists, loads, clears and saves its cookies (found by review: the jar went with the transfer thread and saving wrote an empty file)")
    func afterShutdown() async throws {
        let path = NSTemporaryDirectory() + "curlew-jar-after-\(uniqueTag()).txt"
        defer { unlink(path) }
        let agent = try await pipelineAgent { $0.cookies = CookieSettings(enabled: true, jarFile: path) }
        _ = try await agent.send(Request(.get, "/cookies/set?kept=yes&max_age=600"))
        agent.shutdown()
        #expect(await agent.cookies().map(\.name) == ["kept"])
        try await agent.saveCookies()
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("\tkept\tyes"))
        await agent.clearCookies()
        #expect(await agent.cookies().isEmpty)
        try await agent.loadCookies(from: path)
        #expect(await agent.cookies().map(\.name) == ["kept"])
    }

    @Test("with cookies on for the whole agent, two transfer threads become one with the whole connection limits: 8 one-second requests over 4 connections (found by review: the cookie thread had half)")
    func cookiesKeepTheLimits() async throws {
        var config = NetworkConfig(baseURL: try await TestServer.shared().baseURL, maxConnectionsPerHost: 4)
        config.transferThreads = 2
        config.cookies.enabled = true
        let agent = Agent(config: config)
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { _ = try await agent.send(Request(.get, "/delay/1")) }
            }
            try await group.waitForAll()
        }
        await agent.waitForObservers()
        let ports = Set(recorder.messages.compactMap { $0.connection?.localPort })
        #expect(ports.count == 4, "connections used: \(ports.count)")
    }

    @Test("a jar file that is missing, a directory or a link is refused with the reason")
    func badJars() async throws {
        let agent = try await pipelineAgent { $0.cookies.enabled = true }
        let directory = NSTemporaryDirectory()
        for path in ["/nonexistent/jar.txt", directory] {
            await #expect(throws: RequestError.self) { try await agent.loadCookies(from: path) }
        }
        let link = NSTemporaryDirectory() + "curlew-jar-link-\(uniqueTag())"
        defer { unlink(link) }
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/etc/hostname")
        do {
            try await agent.loadCookies(from: link)
            Issue.record("a symbolic link was read as a jar")
        } catch {
            #expect(error.kind == .localFile)
            #expect(error.message.contains("is a symbolic link"), "\(error)")
        }
        // One cookie too many: refused at once, where libcurl would have taken minutes for a
        // jar of 200,000 (found by a new user's trial).
        let crowded = NSTemporaryDirectory() + "curlew-jar-crowded-\(uniqueTag()).txt"
        defer { unlink(crowded) }
        let lines = (0...10_000).map { "host\($0).example\tFALSE\t/\tFALSE\t0\tc\tv" }
        try (lines.joined(separator: "\n") + "\n").write(toFile: crowded, atomically: true, encoding: .utf8)
        do {
            try await agent.loadCookies(from: crowded)
            Issue.record("a jar of 10,001 cookies was loaded")
        } catch {
            #expect(error.message.contains("has 10001 cookies, more than the 10000 Curlew reads"), "\(error)")
        }
        // Nor is such a jar written: it would be refused when read back (found by review).
        let many = (0...10_000).map { index in
            Cookie(netscapeLine: "host\(index).example\tFALSE\t/\tFALSE\t0\tc\tv")!
        }
        #expect(throws: RequestError.self) { try CookieJarFile.write(many, to: crowded + ".out") }
        #expect(!FileManager.default.fileExists(atPath: crowded + ".out"))
        // A jar that is a dangling link is refused at start, not replaced by a file (found by review).
        let dangling = NSTemporaryDirectory() + "curlew-jar-dangling-\(uniqueTag())"
        defer { unlink(dangling) }
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "/nonexistent/jar.txt")
        let linked = try await pipelineAgent { $0.cookies = CookieSettings(enabled: true, jarFile: dangling) }
        await #expect(throws: RequestError.self) { try await linked.reloadJarFile() }
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dangling)) == "/nonexistent/jar.txt")
        await #expect(throws: RequestError.self) { try await pipelineAgent().saveCookies() }
        // A file that is not a jar, passed over when the agent starts, is not written over when
        // it saves either (found by review).
        let notes = NSTemporaryDirectory() + "curlew-jar-notes-\(uniqueTag()).txt"
        defer { unlink(notes) }
        try "my notes\n".write(toFile: notes, atomically: true, encoding: .utf8)
        let noted = try await pipelineAgent { $0.cookies = CookieSettings(enabled: true, jarFile: notes) }
        _ = try await noted.send(Request(.get, "/cookies/set?sid=kept"))
        do {
            try await noted.saveCookies()
            Issue.record("a file that is not a jar was written over")
        } catch {
            #expect(error.message.contains("is not a cookie jar"), "\(error)")
        }
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "my notes\n")
    }

    @Test("cookie values stay out of the session log, even where a server echoes them in a body")
    func redacted() async throws {
        let log = NSTemporaryDirectory() + "curlew-cookie-log-\(uniqueTag()).jsonl"
        defer { unlink(log) }
        let agent = try await pipelineAgent { $0.cookies.enabled = true }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: log))
        agent.addObserver(logger)
        _ = try await agent.send(Request(.get, "/cookies/set?sid=s3cr3t-cookie-value"))
        _ = try await agent.send(Request(.get, "/cookies"))
        await agent.waitForObservers()
        try logger.close()
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(!text.contains("s3cr3t-cookie-value"))
        #expect(text.contains("[REDACTED]"))
    }

    @Test("Netscape jar lines read and write back the same, HttpOnly and session cookies included")
    func netscapeLines() {
        let line = "#HttpOnly_.example.test\tTRUE\t/api\tTRUE\t1795423521\tsid\tv=1"
        let cookie = Cookie(netscapeLine: line)
        #expect(cookie == Cookie(domain: "example.test", includesSubdomains: true, path: "/api", secure: true, httpOnly: true,
                                 expires: Date(timeIntervalSince1970: 1_795_423_521), name: "sid", value: "v=1"))
        #expect(cookie?.netscapeLine == line)
        #expect(Cookie(netscapeLine: "host\tFALSE\t/\tFALSE\t0\tn\t")?.expires == nil)
        for bad in ["# comment", "", "a\tb", "host\tFALSE\t/\tFALSE\t-1\tn\tv", "host\tFALSE\t/\tFALSE\tsoon\tn\tv", "\tFALSE\t/\tFALSE\t0\tn\tv",
                    // A domain of only a dot, or two dots before the host (found by the headers fuzz target).
                    "#HttpOnly_.\t\\PUE\t/\tFALSE\t1795423521\tsession\tpOnl23", ".\tTRUE\t/\tFALSE\t0\tn\tv", "..host\tFALSE\t/\tFALSE\t0\tn\tv",
                    ".#host\tFALSE\t/\tFALSE\t0\tn\tv"] {
            #expect(Cookie(netscapeLine: bad) == nil, "\(bad.debugDescription)")
        }
        let far = Cookie(netscapeLine: "host\tFALSE\t/\tFALSE\t9223372036854775807\tn\tv")
        #expect(far.map { Cookie(netscapeLine: $0.netscapeLine) == $0 } == true, "an expiry past year 9999 is kept as its end")
        // A domain starting with a combining mark joins the written "." or "_" into one
        // Character; it still reads back (found by the headers fuzz target).
        for domain in ["\u{0737}\u{FFFD}y_.example.test", "\u{301}host"] {
            for httpOnly in [false, true] {
                let odd = Cookie(domain: domain, includesSubdomains: true, httpOnly: httpOnly, name: "session", value: "abc123")
                #expect(Cookie(netscapeLine: odd.netscapeLine) == odd, "\(odd.netscapeLine.debugDescription)")
            }
        }
    }

    @Test("a request without cookies after ones with cookies sends none (pooled handles leave the jar)")
    func pooledHandlesLeaveTheJar() async throws {
        let agent = try await pipelineAgent()
        var setting = Request(.get, "/cookies/set?pool=shared-value")
        setting.usesCookies = true
        for _ in 0..<3 { _ = try await agent.send(setting) }
        for _ in 0..<3 {
            #expect(try await agent.send(Request(.get, "/cookies")).json()["cookies"] == .object([]))
        }
    }

    @Test("a jar file cannot give libcurl commands: a line reading ALL does not empty the jar")
    func jarCommands() async throws {
        let path = NSTemporaryDirectory() + "curlew-jar-commands-\(uniqueTag()).txt"
        defer { unlink(path) }
        try "ALL\nSESS\nFLUSH\n".write(toFile: path, atomically: true, encoding: .utf8)
        let agent = try await pipelineAgent { $0.cookies.enabled = true }
        _ = try await agent.send(Request(.get, "/cookies/set?kept=yes-kept"))
        try await agent.loadCookies(from: path)
        #expect(await agent.cookies().map(\.name) == ["kept"])
    }
}
