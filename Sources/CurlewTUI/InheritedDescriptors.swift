import Foundation

/// What a child process started with `posix_spawn` inherits: standard input, output and error,
/// and no other descriptor of this process.
///
/// Sockets made by SwiftNIO and by the libcurl Debian ships stay open across `exec` (neither asks
/// for close-on-exec),
/// so a child would otherwise hold this process's connections, the embedded demo server's among
/// them: a connection the server closes would reach its client only when the child exits (an
/// editor left open for minutes), and the child could read and write them.
public enum InheritedDescriptors {
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the C headers
    /// declare in a form Swift does not import.
    private static let closeFrom: CloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    /// Adds to `actions`, after the actions already there, closing every descriptor above
    /// standard error in the child. Where the C library lacks the action (or refuses it), every
    /// descriptor this process has open above standard error at this moment is closed by its own
    /// action.
    public static func onlyStandard(_ actions: inout posix_spawn_file_actions_t) {
        if let closeFrom, closeFrom(&actions, 3) == 0 { return }
        closingEachOpen(&actions)
    }

    /// Closes each descriptor open above standard error now, one action each (a descriptor
    /// closed before the child starts fails its close there, which `posix_spawn` ignores).
    static func closingEachOpen(_ actions: inout posix_spawn_file_actions_t) {
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
            _ = posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }
}
