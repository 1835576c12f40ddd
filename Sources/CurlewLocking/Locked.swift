import Synchronization

#if !CURLEW_TSAN
/// A value guarded by a lock: Swift's `Mutex` itself, so the lock costs nothing more.
public typealias Locked = Mutex
#else
/// A value guarded by a lock, in `make sanitize` builds (`-DCURLEW_TSAN`): Swift's `Mutex`, which
/// ThreadSanitizer cannot see on Linux (it locks with futex system calls the sanitizer does not
/// intercept, so every access under it is reported as a race), plus annotations that tell the
/// sanitizer when each critical section acquires and releases the lock.
public struct Locked<Value: ~Copyable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<Value>
    /// The address the sanitizer's acquire and release name this lock by (not the value's, whose
    /// every access the sanitizer checks).
    @usableFromInline let token = SanitizerToken()

    @inlinable
    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    @inlinable @inline(__always)
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            let address = UnsafeRawPointer(Unmanaged.passUnretained(token).toOpaque())
            ThreadSanitizer.acquire(address)
            defer { ThreadSanitizer.release(address) }
            return try body(&value)
        }
    }
}

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
