import RTP

/// One server connection's deadlines, sans I/O (the owner tells it what happened, and asks it at
/// ``nextDeadline(hasSessions:)``):
/// a request must arrive whole within ``requestTimeout`` of its first byte; a connection that holds no session
/// and sends no whole request for ``idleTimeout`` is closed; one whose writes have not drained for
/// ``stallTimeout`` (a client that does not read) is closed. Only whole requests and interleaved frames count as
/// activity: a byte now and then keeps nothing open.
@_spi(SansIO) public struct ConnectionDeadlines: Sendable {
    /// What the owner does with the connection now.
    public enum Verdict: Sendable, Hashable {
        /// Nothing: every deadline is ahead.
        case keep
        /// A request began and did not end in time (a slow or stuck client): answer 408 and close.
        case requestTimedOut
        /// No session, nothing whole heard for the idle timeout: close.
        case idle
        /// Nothing written has drained for the stall timeout: close.
        case stalled
    }

    /// How long a request may take to arrive whole, from its first byte.
    public let requestTimeout: Duration
    /// How long a connection without a session may go without a whole request.
    public let idleTimeout: Duration
    /// How long a connection may stay unwritable (nothing it was sent drains).
    public let stallTimeout: Duration
    /// When the unfinished request (or frame) now buffered began; nil when nothing partial is held.
    private var partialSince: ArrivalTime?
    /// When the last whole request or frame came.
    private var lastWhole: ArrivalTime
    /// Since when the connection has not been writable; nil while it is.
    private var unwritableSince: ArrivalTime?

    /// Deadlines from `now` (the connection's start).
    public init(requestTimeout: Duration, idleTimeout: Duration, stallTimeout: Duration, now: ArrivalTime) {
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.stallTimeout = stallTimeout
        lastWhole = now
    }

    /// A framing pass ended: `whole` frames came out of it, and part of one is left (`partial`). A partial
    /// request's clock starts with the first pass that leaves it and stops when a frame completes.
    public mutating func framed(whole: Int, partial: Bool, now: ArrivalTime) {
        if whole > 0 {
            lastWhole = now
            partialSince = nil
        }
        if partial {
            if partialSince == nil { partialSince = now }
        } else {
            partialSince = nil
        }
    }

    /// The connection's writability changed (or was read) at `now`.
    public mutating func writability(_ isWritable: Bool, now: ArrivalTime) {
        if isWritable {
            unwritableSince = nil
        } else if unwritableSince == nil {
            unwritableSince = now
        }
    }

    /// The first time ``check(now:hasSessions:)`` can give something but `.keep`, as things stand (when to wake
    /// up next); nil when no deadline runs.
    public func nextDeadline(hasSessions: Bool) -> ArrivalTime? {
        let past = Duration.nanoseconds(1)  // each deadline is passed, not met
        return [
            unwritableSince.map { $0 + stallTimeout + past },
            partialSince.map { $0 + requestTimeout + past },
            hasSessions ? nil : lastWhole + idleTimeout + past,
        ].compactMap { $0 }.min()
    }

    /// What to do at `now`.
    public func check(now: ArrivalTime, hasSessions: Bool) -> Verdict {
        if let since = unwritableSince, now - since > stallTimeout { return .stalled }
        if let since = partialSince, now - since > requestTimeout { return .requestTimedOut }
        if !hasSessions, now - lastWhole > idleTimeout { return .idle }
        return .keep
    }
}
