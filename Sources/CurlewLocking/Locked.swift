import Synchronization

/// A value guarded by a lock: Swift's `Mutex`, which ThreadSanitizer cannot see on Linux (it
/// locks with futex system calls the sanitizer does not intercept, so every access under it is
/// reported as a race). Built with `-DCURLEW_TSAN`, as `make sanitize` builds, each critical
/// section also tells the sanitizer it acquires and releases the lock; otherwise this is `Mutex`
/// and nothing more.
public struct Locked<Value: ~Copyable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<Value>
    #if CURLEW_TSAN
    /// The address the sanitizer's acquire and release name this lock by (not the value's, whose
    /// every access the sanitizer checks).
    @usableFromInline let token = SanitizerToken()
    #endif

    @inlinable
    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    @inlinable @inline(__always)
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            #if CURLEW_TSAN
            let address = UnsafeRawPointer(Unmanaged.passUnretained(token).toOpaque())
            ThreadSanitizer.acquire(address)
            defer { ThreadSanitizer.release(address) }
            #endif
            return try body(&value)
        }
    }
}

#if CURLEW_TSAN
@usableFromInline
final class SanitizerToken: Sendable {
    @usableFromInline init() {}
}

/// The sanitizer's annotations, present in the runtime every `-sanitize=thread` build links.
@usableFromInline
enum ThreadSanitizer {
    @usableFromInline @_silgen_name("__tsan_acquire")
    static func acquire(_ address: UnsafeRawPointer)

    @usableFromInline @_silgen_name("__tsan_release")
    static func release(_ address: UnsafeRawPointer)
}
#endif
