import RTP
import Testing

/// The sending side of a stream: numbering, RTP times from the media clock, and what its reports say.
@Suite struct RTPSenderTests {
    static let start = WallClockTime(ntp: (WallClockTime.unixEpochOffset + 1_800_000_000) << 32)

    @Test func packetsAreNumberedAndStampedAsRTPPacketReadsThem() throws {
        var sender = RTPSender(
            payloadType: 96, clockRate: 90_000, ssrc: 0xCAFE_0001, firstSequenceNumber: 65_535,
            timestampOffset: 0xFFFF_FF00)
        var first: [UInt8] = []
        sender.append(payload: [1, 2, 3], marker: false, timestamp: 0, capturedAt: Self.start, to: &first)
        var second: [UInt8] = []
        sender.append(payload: [4], marker: true, timestamp: 3000, capturedAt: Self.start, to: &second)
        let a = try RTPPacket(first[...])
        let b = try RTPPacket(second[...])
        #expect((a.sequenceNumber, b.sequenceNumber) == (65_535, 0))
        #expect((a.timestamp, b.timestamp) == (0xFFFF_FF00, 3000 &- 0x100))
        #expect(!a.marker && b.marker && a.payloadType == 96 && b.ssrc == 0xCAFE_0001)
        #expect(Array(a.payload) == [1, 2, 3])
        #expect(sender.packetCount == 2 && sender.octetCount == 4)
    }

    /// A report's RTP time is the last packet's, moved on at the clock rate to the report's wall-clock time.
    @Test func aSenderReportExtrapolatesFromTheLastPacket() throws {
        var sender = RTPSender(payloadType: 0, clockRate: 8000, ssrc: 7, firstSequenceNumber: 0, timestampOffset: 1000)
        #expect(sender.senderReport(at: Self.start) == nil)
        var packet: [UInt8] = []
        sender.append(payload: [0xFF], marker: false, timestamp: 160, capturedAt: Self.start, to: &packet)
        let report = try #require(sender.senderReport(at: Self.start.adding(seconds: 2.5)))
        #expect(report.rtpTimestamp == 1000 + 160 + 20_000)
        #expect(report.ntpTimestamp == Self.start.adding(seconds: 2.5).ntp)
        #expect(report.packetCount == 1 && report.octetCount == 1 && report.ssrc == 7)
        // A receiver's clock made from the report dates the packet at the time it was sent with.
        var clock = SenderClock(clockRate: 8000)
        clock.update(with: report)
        let dated = try #require(clock.wallClock(rtpTimestamp: UInt64(1160)))
        #expect(abs(dated.secondsSince1970 - Self.start.secondsSince1970) < 0.001)
    }

    @Test func nowIsTheRealTimeClock() {
        let now = WallClockTime.now().secondsSince1970
        #expect(now > 1_700_000_000 && now < 4_000_000_000)
    }
}
