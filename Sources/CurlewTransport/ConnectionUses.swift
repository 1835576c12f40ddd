/// Counts the exchanges each connection carried, told apart by its local and remote address and
/// port (unique while the connection is open). Used only on the transfer thread.
struct ConnectionUses {
    private struct Key: Hashable {
        var localIP: String
        var localPort: Int
        var remoteIP: String
        var remotePort: Int

        /// The ports alone: on one machine they nearly always tell connections apart, and
        /// hashing the addresses' text cost more than the rest of the count. Equality still
        /// compares all four.
        func hash(into hasher: inout Hasher) {
            hasher.combine(localPort)
            hasher.combine(remotePort)
        }
    }

    private var uses: [Key: Int] = [:]
    /// More connections than this are forgotten at once; their counts restart.
    private let capacity = 4096

    /// Sets `connection.requestsOnConnection`: 1 for a new connection, one more for a reused one,
    /// and nil for a reused one whose earlier exchanges were not counted (they were not measured,
    /// or it outlived a reset of the counts): its count is not known.
    mutating func count(_ connection: inout ConnectionFacts) {
        guard connection.localPort > 0 else { return }
        let key = Key(localIP: connection.localIP, localPort: connection.localPort, remoteIP: connection.remoteIP, remotePort: connection.remotePort)
        if connection.reused {
            // A reused connection known here is counted in place: one lookup.
            guard let index = uses.index(forKey: key) else {
                connection.requestsOnConnection = nil
                return
            }
            uses.values[index] += 1
            connection.requestsOnConnection = uses.values[index]
            return
        }
        if uses.count >= capacity, uses[key] == nil { uses.removeAll(keepingCapacity: true) }
        uses[key] = 1
        connection.requestsOnConnection = 1
    }
}
