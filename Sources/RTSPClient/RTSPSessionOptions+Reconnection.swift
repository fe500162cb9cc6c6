extension RTSPSessionOptions {
    /// How a session that broke plays again (``RTSPSessionOptions/reconnection``): the delays before each
    /// attempt grow exponentially from ``initialDelay`` to at most ``maxDelay``, each spread by ``jitter`` so
    /// that the clients of a camera that restarts do not all come back at the same moment.
    ///
    /// A session breaks when its connection drops, the server restarts, no media arrives for
    /// ``RTSPSessionOptions/inactivityTimeout``, or a request goes unanswered. What cannot mend by waiting
    /// is final: credentials refused (401), a stream that is not there or not allowed (404, 403, 410), a
    /// certificate, a redirect refused, a server that now offers other tracks.
    public struct Reconnection: Sendable, Hashable {
        /// The delay before the first attempt after a break. Default 500 ms.
        public var initialDelay: Duration
        /// No delay is longer, jitter included. Default 10 s.
        public var maxDelay: Duration
        /// Each attempt waits this many times longer than the one before (at least 1). Default 2.
        public var multiplier: Double
        /// Each delay is drawn from ± this fraction around its value (0 to 1). Default 0.2.
        public var jitter: Double
        /// Attempts in a row, without playing in between, before the session ends with the last error; nil:
        /// no end (a camera left unattended). Default nil.
        public var maxAttempts: Int?
        /// Whether the first connect is retried too: a camera down when the session starts is waited for
        /// as one that went away is, and `connect` returns once it plays (bounded by ``maxAttempts`` and by
        /// cancelling the calling task, no longer by ``RTSPSessionOptions/setupTimeout`` as a whole; each
        /// attempt still is). Default false: the first connect fails at once, so that a wrong address is
        /// heard of.
        public var includesFirstConnect: Bool

        public init(
            initialDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(10), multiplier: Double = 2,
            jitter: Double = 0.2, maxAttempts: Int? = nil, includesFirstConnect: Bool = false
        ) {
            self.initialDelay = initialDelay
            self.maxDelay = maxDelay
            self.multiplier = multiplier
            self.jitter = jitter
            self.maxAttempts = maxAttempts
            self.includesFirstConnect = includesFirstConnect
        }

        /// The delay before attempt `attempt` (1 for the first after a break), with `random` (0 to 1) placing
        /// it within the jitter: never more than ``maxDelay``, never negative, whatever the settings.
        public func delay(attempt: Int, random: Double) -> Duration {
            let base = max(0, initialDelay / .seconds(1))
            let ceiling = max(0, maxDelay / .seconds(1))
            let growth = pow(max(1, multiplier.isFinite ? multiplier : 1), Double(max(0, attempt - 1)))
            let spread = min(1, max(0, jitter.isFinite ? jitter : 0))
            let unit = min(1, max(0, random.isFinite ? random : 0.5))
            let grown = base == 0 ? 0 : min(ceiling, base * growth)  // (0 × ∞ would be NaN)
            let seconds = grown * (1 + spread * (2 * unit - 1))
            // At most a century, in nanoseconds: a maxDelay of any size is a delay, never an overflow.
            return .nanoseconds(Int64(min(ceiling, max(0, seconds), 3e9) * 1e9))
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
