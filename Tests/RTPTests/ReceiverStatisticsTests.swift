import Testing

@_spi(SansIO) @testable import RTP

@Suite struct ReceiverStatisticsTests {
    static func at(ms: Int64) -> ArrivalTime { ArrivalTime(nanoseconds: ms * 1_000_000) }

    @Test func countsLossAsExpectedMinusReceived() {
        var stats = ReceiverStatistics(clockRate: 90000)
        for seq: UInt16 in [10, 11, 12, 15, 16, 20] {
            stats.record(sequenceNumber: seq, timestamp: 0, arrival: Self.at(ms: 0))
        }
        #expect(stats.packets == 6)
        #expect(stats.expected == 10)  // 11...20: the first packet is spent on probation, as in RFC 3550 A.1
        #expect(stats.lost == 5)
    }

    @Test func duplicatesMakeLossNegativeAndAreCounted() {
        var stats = ReceiverStatistics(clockRate: 90000)
        for seq: UInt16 in [1, 2, 3, 3, 4, 2] {
            stats.record(sequenceNumber: seq, timestamp: 0, arrival: Self.at(ms: 0))
        }
        #expect(stats.duplicates == 2)
        #expect(stats.reordered == 0)
        #expect(stats.lost == -2)
    }

    @Test func countsLatePacketsAsReordered() {
        var stats = ReceiverStatistics(clockRate: 90000)
        for seq: UInt16 in [1, 2, 4, 3, 5] {
            stats.record(sequenceNumber: seq, timestamp: 0, arrival: Self.at(ms: 0))
        }
        #expect(stats.reordered == 1)
        #expect(stats.duplicates == 0)
        #expect(stats.lost == 0)
    }

    @Test func jitterIsZeroForConstantTransitTime() {
        var stats = ReceiverStatistics(clockRate: 90000)
        for i in 0..<50 {
            // 40 ms apart on both clocks (3600 units at 90 kHz), 5 ms in transit.
            stats.record(
                sequenceNumber: UInt16(i), timestamp: UInt32(i * 3600), arrival: Self.at(ms: Int64(i) * 40 + 5))
        }
        #expect(stats.jitter < 0.01)
    }

    @Test func jitterFollowsRFC3550A8() {
        // Timestamps 10 ms apart (900 units at 90 kHz); arrivals at 0, 20, 20 ms.
        // Transits 0, 900, 0: |D| = 900 twice. J1 = 900/16 = 56.25; J2 = 56.25 + (900 - 56.25)/16 = 108.984375.
        var stats = ReceiverStatistics(clockRate: 90000)
        stats.record(sequenceNumber: 1, timestamp: 0, arrival: Self.at(ms: 0))
        stats.record(sequenceNumber: 2, timestamp: 900, arrival: Self.at(ms: 20))
        stats.record(sequenceNumber: 3, timestamp: 1800, arrival: Self.at(ms: 20))
        #expect(abs(stats.jitter - 108.984375) < 1e-6)
        #expect(abs(stats.jitterMilliseconds - 108.984375 / 90) < 1e-9)
    }

    @Test func jitterIgnoresTheTimestampWrap() {
        var stats = ReceiverStatistics(clockRate: 90000)
        stats.record(sequenceNumber: 1, timestamp: UInt32.max - 899, arrival: Self.at(ms: 0))
        stats.record(sequenceNumber: 2, timestamp: 100, arrival: Self.at(ms: 11))  // 1000 units later, 11 ms later
        #expect(abs(stats.jitter - (990 - 1000).magnitude / 16) < 1e-6)
    }

    @Test func reportBlockCarriesTheIntervalFractionLost() {
        var stats = ReceiverStatistics(clockRate: 90000)
        for seq: UInt16 in [1, 2, 3, 4, 6, 8, 9] {  // after probation: expected 8 (2...9), received 6
            stats.record(sequenceNumber: seq, timestamp: 0, arrival: Self.at(ms: 0))
        }
        let first = stats.makeReportBlock(ssrc: 42)
        #expect(first.ssrc == 42)
        #expect(first.cumulativeLost == 2)
        #expect(first.fractionLost == UInt8(2 * 256 / 8))
        #expect(first.extendedHighestSequence == 9)
        stats.record(sequenceNumber: 10, timestamp: 0, arrival: Self.at(ms: 0))
        #expect(stats.makeReportBlock(ssrc: 42).fractionLost == 0)
    }
}
