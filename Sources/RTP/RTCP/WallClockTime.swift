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

    /// The time in UTC, ISO 8601 to the microsecond: `2026-01-01T00:00:01.500000Z`.
    public var description: String {
        let micros = microsecondsSince1970
        // Floor division: a time before 1970 is in the day and second before, its fraction counted forward.
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        let fraction = Int(micros - seconds * 1_000_000)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = Int(seconds - days * 86_400)
        let (year, month, day) = CivilDate.date(daysSinceEpoch: Int(days))
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(inDay / 3600, 2)):"
            + "\(padded(inDay / 60 % 60, 2)):\(padded(inDay % 60, 2)).\(padded(fraction, 6))Z"
    }

    /// Seconds since 1970 with six decimals (`1767225601.500000`; `-0.250000` before it): `rtpdump`'s form,
    /// what a script computes with.
    public var unixSeconds: String {
        let micros = microsecondsSince1970
        let magnitude = micros.magnitude
        let fraction = String(magnitude % 1_000_000)
        let sign = micros < 0 ? "-" : ""
        return "\(sign)\(magnitude / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}
