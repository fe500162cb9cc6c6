import RTP
import TestSupport
import Testing

/// Every NTP value is a time that formats, converts and moves without trapping; the printed form is the exact
/// value rounded to the microsecond (checked against integer arithmetic done here, not the type's own).
@Suite struct WallClockTimeTests {
    /// Values at every edge (the eras' ends, 1970, a second's ends) and 100,000 drawn over the whole range.
    static var values: [UInt64] {
        let epoch = WallClockTime.unixEpochOffset << 32
        var values: [UInt64] = [
            0, 1, 0xFFFF_FFFF, 1 << 32, UInt64.max, UInt64.max - 1, 1 << 63, (1 << 63) - 1, epoch, epoch - 1, epoch + 1,
            epoch - (1 << 31), epoch + (1 << 31), epoch - 0xFFFF_FFFF, 0xFFFF_FFFF_0000_0000,
        ]
        var random = SplitMix64(seed: 37)
        for _ in 0..<100_000 { values.append(random.next()) }
        return values
    }

    /// The description is the exact time rounded to the microsecond, its sign right on both sides of 1970.
    @Test func descriptionIsTheExactTimeToTheMicrosecondOverTheWholeRange() throws {
        for ntp in Self.values {
            let time = WallClockTime(ntp: ntp)
            // The exact value in microseconds, as a sign and a magnitude of whole units: (seconds since 1970) *
            // 10^6 + fraction * 10^6 / 2^32, rounded half up.
            let seconds = Int64(ntp >> 32) - Int64(WallClockTime.unixEpochOffset)
            let fractionMicros = Int64((ntp & 0xFFFF_FFFF) * 1_000_000 / (1 << 32))
            let remainder = (ntp & 0xFFFF_FFFF) * 1_000_000 % (1 << 32)
            let micros = seconds * 1_000_000 + fractionMicros + (remainder >= 1 << 31 ? 1 : 0)
            let text = time.description
            let negative = text.hasPrefix("-")
            let parts = text.dropFirst(negative ? 1 : 0).split(separator: ".")
            try #require(parts.count == 2 && parts[1].count == 6, "\(ntp): \(text)")
            let whole = try #require(Int64(parts[0]))
            let fraction = try #require(Int64(parts[1]))
            let printed = (whole * 1_000_000 + fraction) * (negative ? -1 : 1)
            #expect(printed == micros, "ntp \(ntp) printed \(text)")
            #expect(time.microsecondsSince1970 == micros)
            #expect(abs(time.secondsSince1970 - Double(micros) / 1e6) < 1e-5 * max(1, abs(Double(seconds))) / 1e3)
        }
    }

    /// Moving a time by any number of seconds, even not finite or beyond the era, gives a time; a step within
    /// the era moves it by that step (modulo the era, as NTP's arithmetic wraps).
    @Test func addingAnyStepNeverTraps() {
        var random = SplitMix64(seed: 38)
        let steps: [Double] = [0, 1, -1, 0.5, -0.25, 1e9, -1e9, 4.3e9, -4.3e9, 1e300, -1e300, .infinity, -.infinity, .nan]
        for _ in 0..<10_000 {
            let time = WallClockTime(ntp: random.next())
            for step in steps {
                let moved = time.adding(seconds: step)
                _ = moved.description
                if step.isFinite && abs(step) < 1e9 {
                    let ticks = Int64((step * 4_294_967_296).rounded())
                    #expect(moved.ntp == UInt64(bitPattern: Int64(bitPattern: time.ntp) &+ ticks))
                }
                if !step.isFinite { #expect(moved == time) }
            }
        }
    }

    /// Known instants: 1970 itself, half a second before it, and a day of 2026.
    @Test func knownInstantsPrintAsUnixSeconds() {
        let epoch = WallClockTime.unixEpochOffset << 32
        #expect(WallClockTime(ntp: epoch).description == "0.000000")
        #expect(WallClockTime(ntp: epoch - (1 << 31)).description == "-0.500000")
        #expect(WallClockTime(ntp: epoch - (1 << 32) - (1 << 30)).description == "-1.250000")
        #expect(WallClockTime(ntp: 0).description == "-2208988800.000000")
        #expect(WallClockTime(ntp: UInt64.max).description == "2085978496.000000")
        #expect(WallClockTime(ntp: (1_767_225_600 + WallClockTime.unixEpochOffset) << 32 | 1 << 31).description == "1767225600.500000")
    }

    /// A sender report of NTP time 0 (RFC 3550: a sender without a wall clock) dates nothing; one of 1900 does.
    @Test func aReportOfNTPZeroDatesNothing() throws {
        var clock = SenderClock(clockRate: 90_000)
        clock.update(with: RTCPSenderReport(ssrc: 1, ntpTimestamp: 0, rtpTimestamp: 1000, packetCount: 0, octetCount: 0))
        #expect(clock.wallClock(rtpTimestamp: 1000) == nil)
        clock.update(with: RTCPSenderReport(ssrc: 1, ntpTimestamp: 10 << 32, rtpTimestamp: 1000, packetCount: 0, octetCount: 0))
        let time = try #require(clock.wallClock(rtpTimestamp: UInt64(UInt32(1000) &- 180_000)))
        #expect(time.description == "-2208988792.000000")
        // Before the era's start, NTP's arithmetic wraps to its end (2036), as every NTP implementation does.
        let wrapped = try #require(clock.wallClock(rtpTimestamp: UInt64(UInt32(1000) &- 90_000 * 11)))
        #expect(wrapped.description == "2085978495.000000")
    }
}
