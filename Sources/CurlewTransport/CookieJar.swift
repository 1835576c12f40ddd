import CCurl
import Foundation

/// libcurl's cookie engine shared by every exchange of one transfer engine that uses cookies:
/// cookies a response sets are sent on later requests to the same site. Used by one thread at a
/// time: the engine's cookie thread (`TransferEngine.cookieLane`) while it runs, which runs every
/// such exchange, since libcurl does not support one cookie share used by several threads at
/// once; once that thread has ended, the callers of `TransferEngine`'s cookie methods, one at a
/// time under the engine's lock.
final class CookieJar: @unchecked Sendable {
    let share: UnsafeMutableRawPointer
    /// An easy handle attached to the share, used only to list, add and clear cookies.
    private let handle: EasyHandle

    init?() {
        guard let share = curl_share_init() else { return nil }
        guard curlew_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue)) == CURLSHE_OK,
              let handle = EasyHandle() else {
            curl_share_cleanup(share)
            return nil
        }
        self.share = share
        self.handle = handle
        _ = curlew_easy_setopt_pointer(handle.raw, CURLOPT_SHARE, share)
        _ = "".withCString { curlew_easy_setopt_string(handle.raw, CURLOPT_COOKIEFILE, $0) }
    }

    deinit {
        // The handle must leave the share before the share can go.
        _ = curlew_easy_setopt_pointer(handle.raw, CURLOPT_SHARE, nil)
        curl_share_cleanup(share)
    }

    /// Every cookie in the jar, expired ones left out.
    func cookies() -> [Cookie] {
        var list: UnsafeMutableRawPointer?
        guard curlew_easy_getinfo_pointer(handle.raw, CURLINFO_COOKIELIST, &list) == CURLE_OK, let list else { return [] }
        let head = list.assumingMemoryBound(to: curl_slist.self)
        defer { curl_slist_free_all(head) }
        var cookies: [Cookie] = []
        var node: UnsafeMutablePointer<curl_slist>? = head
        let now = Date()
        while let current = node {
            if let data = current.pointee.data, let cookie = Cookie(netscapeLine: String(cString: data)),
               cookie.expires.map({ $0 > now }) ?? true {
                cookies.append(cookie)
            }
            node = current.pointee.next
        }
        return cookies
    }

    /// Adds cookies given as Netscape lines or `Set-Cookie:` lines; libcurl ignores lines it
    /// cannot read. Anything else is skipped: `ALL`, `SESS`, `FLUSH` and `RELOAD` are commands
    /// to libcurl, and a jar file must not be able to give them.
    func add(_ lines: [String]) {
        for line in lines where Cookie.isJarInput(line) {
            _ = line.withCString { curlew_easy_setopt_string(handle.raw, CURLOPT_COOKIELIST, $0) }
        }
    }

    func removeAll() {
        _ = "ALL".withCString { curlew_easy_setopt_string(handle.raw, CURLOPT_COOKIELIST, $0) }
    }
}
