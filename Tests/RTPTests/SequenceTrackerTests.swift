import Testing

@_spi(SansIO) @testable import RTP

@Suite struct SequenceTrackerTests {
    @Test func sourceIsValidAfterTwoSequentialPackets() {
        var tracker = SequenceTracker()
        #expect(tracker.update(100) == .probation)
        #expect(!tracker.isValid)
        #expect(tracker.update(101) == .accepted(extendedSequence: 101, isNewHighest: true))
        #expect(tracker.isValid)
        #expect(tracker.received == 1)
        #expect(tracker.expected == 1)
    }

    @Test func probationStartsAgainAfterAnOutOfOrderPacket() {
        var tracker = SequenceTracker()
        #expect(tracker.update(10) == .probation)
        #expect(tracker.update(50) == .probation)
        #expect(tracker.update(51) == .accepted(extendedSequence: 51, isNewHighest: true))
    }

    @Test func extendsAcrossTheSixteenBitWrap() {
        var tracker = SequenceTracker()
        _ = tracker.update(65534)
        _ = tracker.update(65535)
        #expect(tracker.update(0) == .accepted(extendedSequence: 65536, isNewHighest: true))
        #expect(tracker.update(1) == .accepted(extendedSequence: 65537, isNewHighest: true))
        #expect(tracker.expected == 3)
        #expect(tracker.extendedHighestSequence == 65537)
    }

    @Test func latePacketsGetTheirOwnExtendedNumberAcrossTheWrap() {
        var tracker = SequenceTracker()
        for seq: UInt16 in [65533, 65534, 0, 1] { _ = tracker.update(seq) }
        #expect(tracker.update(65535) == .accepted(extendedSequence: 65535, isNewHighest: false))
    }

    @Test func gapsWithinMaxDropoutCountAsLoss() {
        var tracker = SequenceTracker()
        for seq: UInt16 in [1, 2, 3, 2002] { _ = tracker.update(seq) }
        // Counting starts at 2, when probation ends: 2...2002 expected, 2, 3 and 2002 received.
        #expect(tracker.expected == 2001)
        #expect(tracker.received == 3)
    }

    @Test func aSingleLargeJumpIsRejectedAndASecondOneResynchronizes() {
        var tracker = SequenceTracker()
        for seq: UInt16 in [1, 2, 3] { _ = tracker.update(seq) }
        #expect(tracker.update(40000) == .rejected)
        #expect(tracker.update(5) == .accepted(extendedSequence: 5, isNewHighest: true))
        #expect(tracker.update(40000) == .rejected)
        guard case .resynchronized(let extended) = tracker.update(40001) else {
            Issue.record("expected a resynchronization")
            return
        }
        #expect(extended & 0xFFFF == 40001)
        #expect(extended > 5)
        #expect(tracker.received == 1)
    }

    @Test func packetsFarBehindButWithinMisorderAreLate() {
        var tracker = SequenceTracker()
        for seq: UInt16 in 1...200 { _ = tracker.update(seq) }
        #expect(tracker.update(150) == .accepted(extendedSequence: 150, isNewHighest: false))
        #expect(tracker.update(50) == .rejected)  // 150 behind: more than MAX_MISORDER
    }
}
