import RTP

/// How long a server holds its answer to a wrong authentication, per client address, sans I/O: the first wrong
/// answer in a while goes at once (a typo), then each is held twice as long as the one before, up to
/// ``maxPenalty``, and the holds of one address queue one after another whatever the connections its guesses
/// come on. A guesser gets about one try per ``maxPenalty``; a user who mistyped notices nothing.
///
/// Bounded: at most ``maxAddresses`` are remembered (those quiet for ``window`` go first, then the oldest).
@_spi(SansIO) public struct AuthenticationThrottle: Sendable {
    struct Entry: Sendable {
        var failures: Int
        var lastFailure: ArrivalTime
        var nextAllowed: ArrivalTime
    }

    /// The hold after the second wrong answer; each further one doubles it.
    public var basePenalty: Duration = .milliseconds(125)
    /// The longest one wrong answer adds.
    public var maxPenalty: Duration = .seconds(4)
    /// An address with no wrong answer for this long starts again from no hold.
    public var window: Duration = .seconds(60)
    /// The most addresses remembered at once.
    public var maxAddresses = 4096
    private var entries: [String: Entry] = [:]

    /// A throttle with the default holds (125 ms doubling to 4 s, forgiven after a quiet minute).
    public init() {}

    /// A wrong answer from `address` at `now`: how long to hold its 401 before writing it.
    public mutating func delay(afterFailureFrom address: String, now: ArrivalTime) -> Duration {
        if entries[address] == nil && entries.count >= maxAddresses { makeRoom(now: now) }
        var entry = entries[address] ?? Entry(failures: 0, lastFailure: now, nextAllowed: now)
        if now - entry.lastFailure > window { entry.failures = 0 }
        entry.failures += 1
        entry.lastFailure = now
        var penalty = Duration.zero
        if entry.failures >= 2 {
            // 2^(failures - 2) halvings of the cap, without a power that overflows.
            let doublings = min(entry.failures - 2, 30)
            penalty = min(maxPenalty, basePenalty * (1 << doublings))
        }
        entry.nextAllowed = max(now, entry.nextAllowed) + penalty
        entries[address] = entry
        return entry.nextAllowed - now
    }

    /// Addresses remembered now.
    public var count: Int { entries.count }

    private mutating func makeRoom(now: ArrivalTime) {
        entries = entries.filter { now - $0.value.lastFailure <= window }
        while entries.count >= maxAddresses,
            let oldest = entries.min(by: { $0.value.lastFailure < $1.value.lastFailure })
        {
            entries[oldest.key] = nil
        }
    }
}
