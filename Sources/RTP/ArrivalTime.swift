#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A point in time on the receiver's clock, in nanoseconds: a capture record's timestamp, or a
/// monotonic clock reading on the network path.
///
/// Stages that need time take it as a parameter (`now:`), so that tests and capture replays control it.
public struct ArrivalTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin (the Unix epoch for capture files).
    public var nanoseconds: Int64

    /// A time `nanoseconds` after the clock's origin.
    @inlinable
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// Now, on the monotonic clock the network path uses (SwiftNIO's `NIODeadline.now()` reads the same
    /// one): for packets a caller receives itself.
    public static func now() -> ArrivalTime {
        #if canImport(Darwin)
            return ArrivalTime(nanoseconds: Int64(clock_gettime_nsec_np(CLOCK_UPTIME_RAW)))
        #else
            var spec = timespec()
            clock_gettime(CLOCK_MONOTONIC, &spec)
            return ArrivalTime(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
        #endif
    }

    /// Seconds since the clock's origin.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    @inlinable
    public static func < (lhs: ArrivalTime, rhs: ArrivalTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The time `duration` later.
    @inlinable
    public static func + (lhs: ArrivalTime, rhs: Duration) -> ArrivalTime {
        ArrivalTime(nanoseconds: lhs.nanoseconds &+ rhs.nanosecondCount)
    }

    /// The time between two instants.
    @inlinable
    public static func - (lhs: ArrivalTime, rhs: ArrivalTime) -> Duration {
        .nanoseconds(lhs.nanoseconds &- rhs.nanoseconds)
    }

    /// Seconds with nine decimals (`12.000000250`; `-0.500000000` before the origin).
    public var description: String {
        let magnitude = nanoseconds.magnitude
        let digits = String(magnitude % 1_000_000_000)
        let sign = nanoseconds < 0 ? "-" : ""
        return "\(sign)\(magnitude / 1_000_000_000).\(String(repeating: "0", count: 9 - digits.count))\(digits)"
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating at `Int64`'s range.
    @inlinable
    public var nanosecondCount: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return scaled &+ attoseconds / 1_000_000_000
    }
}

extension WallClockTime {
    /// Now, on this machine's real-time clock: what a sender's reports pair its RTP times with.
    public static func now() -> WallClockTime {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let seconds = UInt64(max(0, Int64(spec.tv_sec))) &+ unixEpochOffset
        let fraction = UInt64(spec.tv_nsec) << 32 / 1_000_000_000
        return WallClockTime(ntp: seconds << 32 | fraction)
    }
}
