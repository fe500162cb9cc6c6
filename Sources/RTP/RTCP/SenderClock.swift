/// A wall-clock time: an NTP timestamp (RFC 5905: seconds since 1900 in the high 32 bits, fraction in
/// the low 32), as RTCP sender reports carry it.
public struct WallClockTime: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Seconds between the NTP epoch (1900) and the Unix epoch (1970).
    public static let unixEpochOffset: UInt64 = 2_208_988_800

    public var ntp: UInt64

    public init(ntp: UInt64) { self.ntp = ntp }

    /// Seconds since 1970-01-01 UTC.
    public var secondsSince1970: Double {
        Double(Int64(ntp >> 32) - Int64(Self.unixEpochOffset)) + Double(ntp & 0xFFFF_FFFF) / 4_294_967_296
    }

    /// This time moved by `seconds` (negative: earlier).
    public func adding(seconds: Double) -> WallClockTime {
        let delta = Int64((seconds * 4_294_967_296).rounded())
        return WallClockTime(ntp: UInt64(bitPattern: Int64(bitPattern: ntp) &+ delta))
    }

    public static func < (a: WallClockTime, b: WallClockTime) -> Bool { a.ntp < b.ntp }

    public var description: String { formatSeconds(secondsSince1970) }

    private func formatSeconds(_ value: Double) -> String {
        let micros = Int64((value * 1_000_000).rounded())
        let fraction = String(micros % 1_000_000)
        return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}

/// Maps one stream's RTP timestamps to the sender's wall clock, from its latest RTCP sender report
/// (RFC 3550 section 6.4.1: the report pairs an NTP time with the RTP timestamp of the same instant).
public struct SenderClock: Sendable, Hashable {
    public let clockRate: Int
    /// The latest report's NTP time and RTP timestamp.
    public private(set) var reference: (ntp: WallClockTime, rtp: UInt32)?
    /// The SSRC of the sender whose reports set it; nil before the first.
    public private(set) var ssrc: UInt32?

    public init(clockRate: Int) {
        self.clockRate = clockRate
    }

    /// The same reference at another clock rate: a source's reports read for a track whose rate is known
    /// only later (an audio track's reports, taken by SSRC before its format was).
    public func withClockRate(_ rate: Int) -> SenderClock {
        var clock = SenderClock(clockRate: rate)
        clock.reference = reference
        clock.ssrc = ssrc
        return clock
    }

    /// Takes a sender report of this stream (the newest wins).
    public mutating func update(with report: RTCPSenderReport) {
        reference = (WallClockTime(ntp: report.ntpTimestamp), report.rtpTimestamp)
        ssrc = report.ssrc
    }

    /// The wall-clock time of RTP timestamp `timestamp` (32 bits, or extended: only its low 32 bits
    /// count, taken as the nearest instant to the report's, so a wrap between them does no harm). Nil
    /// before the first sender report.
    public func wallClock(rtpTimestamp timestamp: UInt64) -> WallClockTime? {
        guard let reference, clockRate > 0 else { return nil }
        let ticks = Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: timestamp) &- reference.rtp))
        return reference.ntp.adding(seconds: Double(ticks) / Double(clockRate))
    }

    public static func == (a: SenderClock, b: SenderClock) -> Bool {
        a.clockRate == b.clockRate && a.reference?.ntp == b.reference?.ntp && a.reference?.rtp == b.reference?.rtp
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(clockRate)
        hasher.combine(reference?.ntp)
    }
}
