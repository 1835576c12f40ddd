import Glibc

/// How many times the calling thread has lost its core to another (its involuntary context
/// switches, `getrusage(RUSAGE_THREAD)`). A change between two readings on one thread means it
/// was preempted in between, so a clock read after the second may be late by as long as it
/// waited.
enum ThreadPreemptions {
    /// Linux's `RUSAGE_THREAD`, which Glibc's module leaves out (it is a GNU extension).
    private static let callingThread = __rusage_who_t(1)

    /// The count so far; 0 if the kernel cannot say (then no change is ever seen).
    static func count() -> Int {
        var usage = rusage()
        guard getrusage(callingThread, &usage) == 0 else { return 0 }
        return usage.ru_nivcsw
    }
}
