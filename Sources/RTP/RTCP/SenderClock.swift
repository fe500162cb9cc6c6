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

    /// Takes a sender report of this stream (the newest wins). A report whose NTP time is 0 is left out: RFC 3550
    /// (section 6.4.1) gives that to a sender with no notion of wall-clock time, and unsynchronised cameras send
    /// it; it dates nothing.
    public mutating func update(with report: RTCPSenderReport) {
        guard report.ntpTimestamp != 0 else { return }
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
