/// A wall-clock time: an NTP timestamp (RFC 5905: seconds since 1900 in the high 32 bits, fraction in
/// the low 32), as RTCP sender reports carry it.
///
/// Every value of the 64 bits is a time (NTP era 0, 1900 to 2036); none traps in any method or form,
/// including those before 1970 that unsynchronised senders report.
public struct WallClockTime: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Seconds between the NTP epoch (1900) and the Unix epoch (1970).
    public static let unixEpochOffset: UInt64 = 2_208_988_800

    public var ntp: UInt64

    public init(ntp: UInt64) { self.ntp = ntp }

    /// Seconds since 1970-01-01 UTC (negative before it).
    public var secondsSince1970: Double {
        Double(Int64(ntp >> 32) - Int64(Self.unixEpochOffset)) + Double(ntp & 0xFFFF_FFFF) / 4_294_967_296
    }

    /// Microseconds since 1970-01-01 UTC, rounded to the nearest (negative before it). Exact integer arithmetic:
    /// every NTP value has one.
    public var microsecondsSince1970: Int64 {
        let seconds = Int64(ntp >> 32) - Int64(Self.unixEpochOffset)
        // The fraction's 32 bits times 10^6 fit in 52 bits; + 2^31 rounds to the nearest microsecond.
        let micros = Int64(((ntp & 0xFFFF_FFFF) * 1_000_000 + (1 << 31)) >> 32)
        return seconds * 1_000_000 + micros
    }

    /// This time moved by `seconds` (negative: earlier), wrapping within the NTP era as NTP arithmetic does.
    /// A step that is not finite leaves it where it is; one of more than 68 years (half the era) is cut to that.
    public func adding(seconds: Double) -> WallClockTime {
        guard seconds.isFinite else { return self }
        let limit = Double(Int64(1) << 31)
        let delta = Int64((Swift.min(Swift.max(seconds, -limit), limit - 1) * 4_294_967_296).rounded())
        return WallClockTime(ntp: UInt64(bitPattern: Int64(bitPattern: ntp) &+ delta))
    }

    public static func < (a: WallClockTime, b: WallClockTime) -> Bool { a.ntp < b.ntp }

    /// Seconds since 1970 with six decimals (`1767225601.500000`; `-0.250000` before it).
    public var description: String {
        let micros = microsecondsSince1970
        let magnitude = micros.magnitude
        let fraction = String(magnitude % 1_000_000)
        let sign = micros < 0 ? "-" : ""
        return "\(sign)\(magnitude / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}
