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
            let text = time.unixSeconds
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
        let steps: [Double] = [
            0, 1, -1, 0.5, -0.25, 1e9, -1e9, 4.3e9, -4.3e9, 1e300, -1e300, .infinity, -.infinity, .nan,
        ]
        for _ in 0..<10_000 {
            let time = WallClockTime(ntp: random.next())
            for step in steps {
                let moved = time.adding(seconds: step)
                _ = (moved.description, moved.unixSeconds)
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
        #expect(WallClockTime(ntp: epoch).unixSeconds == "0.000000")
        #expect(WallClockTime(ntp: epoch - (1 << 31)).unixSeconds == "-0.500000")
        #expect(WallClockTime(ntp: epoch - (1 << 32) - (1 << 30)).unixSeconds == "-1.250000")
        #expect(WallClockTime(ntp: 0).unixSeconds == "-2208988800.000000")
        #expect(WallClockTime(ntp: UInt64.max).unixSeconds == "2085978496.000000")
        #expect(
            WallClockTime(ntp: (1_767_225_600 + WallClockTime.unixEpochOffset) << 32 | 1 << 31).unixSeconds
                == "1767225600.500000")
    }

    /// A sender report of NTP time 0 (RFC 3550: a sender without a wall clock) dates nothing; one of 1900 does.
    @Test func aReportOfNTPZeroDatesNothing() throws {
        var clock = SenderClock(clockRate: 90_000)
        clock.update(
            with: RTCPSenderReport(ssrc: 1, ntpTimestamp: 0, rtpTimestamp: 1000, packetCount: 0, octetCount: 0))
        #expect(clock.wallClock(rtpTimestamp: 1000) == nil)
        clock.update(
            with: RTCPSenderReport(ssrc: 1, ntpTimestamp: 10 << 32, rtpTimestamp: 1000, packetCount: 0, octetCount: 0))
        let time = try #require(clock.wallClock(rtpTimestamp: UInt64(UInt32(1000) &- 180_000)))
        #expect(time.unixSeconds == "-2208988792.000000")
        // Before the era's start, NTP's arithmetic wraps to its end (2036), as every NTP implementation does.
        let wrapped = try #require(clock.wallClock(rtpTimestamp: UInt64(UInt32(1000) &- 90_000 * 11)))
        #expect(wrapped.unixSeconds == "2085978495.000000")
    }

    /// The description is ISO 8601 in UTC: known instants, and every value of the range against the Unix form
    /// (the date's days and the second of the day, computed back with the inverse formula).
    @Test func descriptionIsISO8601InUTC() throws {
        #expect(WallClockTime(ntp: WallClockTime.unixEpochOffset << 32).description == "1970-01-01T00:00:00.000000Z")
        #expect(WallClockTime(ntp: 0).description == "1900-01-01T00:00:00.000000Z")
        #expect(WallClockTime(ntp: UInt64.max).description == "2036-02-07T06:28:16.000000Z")
        #expect(
            WallClockTime(ntp: (WallClockTime.unixEpochOffset << 32) - (1 << 31)).description
                == "1969-12-31T23:59:59.500000Z")
        #expect(
            WallClockTime(ntp: (1_767_225_600 + WallClockTime.unixEpochOffset) << 32 | 1 << 31).description
                == "2026-01-01T00:00:00.500000Z")
        var random = SplitMix64(seed: 39)
        for _ in 0..<20_000 {
            let time = WallClockTime(ntp: random.next())
            let text = time.description
            let parts = text.split(whereSeparator: { "-T:.Z".contains($0) }).compactMap { Int($0) }
            try #require(parts.count == 7, "\(text)")
            let days = CivilDateCheck.days(year: parts[0], month: parts[1], day: parts[2])
            let micros =
                (Int64(days) * 86_400 + Int64(parts[3] * 3600 + parts[4] * 60 + parts[5])) * 1_000_000 + Int64(parts[6])
            #expect(micros == time.microsecondsSince1970, "\(time.ntp): \(text)")
        }
    }
}

/// Days from 1970-01-01 to a date, by counting years and months (not the library's formula).
enum CivilDateCheck {
    static func days(year: Int, month: Int, day: Int) -> Int {
        func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }
        var days = 0
        if year >= 1970 {
            for y in 1970..<year { days += isLeap(y) ? 366 : 365 }
        } else {
            for y in year..<1970 { days -= isLeap(y) ? 366 : 365 }
        }
        let lengths = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        for m in 0..<(month - 1) { days += lengths[m] }
        return days + day - 1
    }
}
