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

/// A transfer thread's preemption count read at most once a turn of its loop, for the wire
/// capture's send stamps (`SendStamp`): the exchanges made ready in one turn share the reading
/// its first one took, one system call a turn instead of one a request. A reading taken earlier
/// in the turn can only count more switches before a later one (dropping a stamp), never fewer
/// (keeping a late one). Used on its loop's thread only.
final class TurnPreemptions {
    @exclusivity(unchecked) private var reading: Int?

    /// The count as read at this turn's first ask.
    func count() -> Int {
        if let reading { return reading }
        let count = ThreadPreemptions.count()
        reading = count
        return count
    }

    /// A new turn starts: the next ask reads the count again.
    func startTurn() {
        reading = nil
    }
}
