import RTP

/// Readings of the machines' clock in these tests: `.zero` is its origin, `.seconds(12)` twelve seconds after, as a
/// driver would read `ArrivalTime.now()` that long after it started.
extension ArrivalTime {
    static let zero = ArrivalTime(nanoseconds: 0)
    static func seconds(_ seconds: Int64) -> ArrivalTime { ArrivalTime(nanoseconds: seconds * 1_000_000_000) }
    static func milliseconds(_ milliseconds: Int64) -> ArrivalTime {
        ArrivalTime(nanoseconds: milliseconds * 1_000_000)
    }
}
