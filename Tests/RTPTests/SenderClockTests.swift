import RTP
import Testing

@Suite struct SenderClockTests {
    static func report(ntpSeconds: UInt64, fraction: UInt64 = 0, rtp: UInt32) -> RTCPSenderReport {
        RTCPSenderReport(
            ssrc: 1, ntpTimestamp: ntpSeconds << 32 | fraction, rtpTimestamp: rtp, packetCount: 0, octetCount: 0)
    }

    @Test func noReportNoTime() {
        #expect(SenderClock(clockRate: 90_000).wallClock(rtpTimestamp: 1234) == nil)
    }

    @Test func timesMoveWithTheRTPClockAcrossAWrap() throws {
        var clock = SenderClock(clockRate: 90_000)
        // 2026-01-01T00:00:00Z in NTP seconds, at an RTP timestamp just before the 32-bit wrap.
        let ntp: UInt64 = 1_767_225_600 + WallClockTime.unixEpochOffset
        clock.update(with: Self.report(ntpSeconds: ntp, fraction: 1 << 31, rtp: 0xFFFF_FF00))
        let after = try #require(clock.wallClock(rtpTimestamp: 90_000 - 0x100))  // 1 s later, after the wrap
        #expect(abs(after.secondsSince1970 - 1_767_225_601.5) < 1e-6)
        let before = try #require(clock.wallClock(rtpTimestamp: 0xFFFF_FF00 - 45_000))  // 0.5 s earlier
        #expect(abs(before.secondsSince1970 - 1_767_225_600.0) < 1e-6)
        #expect(before < after)
        #expect(after.unixSeconds == "1767225601.500000" && after.description == "2026-01-01T00:00:01.500000Z")
    }

    @Test func theNewestReportWins() throws {
        var clock = SenderClock(clockRate: 90_000)
        clock.update(with: Self.report(ntpSeconds: WallClockTime.unixEpochOffset + 100, rtp: 0))
        clock.update(with: Self.report(ntpSeconds: WallClockTime.unixEpochOffset + 200, rtp: 0))
        #expect(try #require(clock.wallClock(rtpTimestamp: 0)).secondsSince1970 == 200)
    }
}
