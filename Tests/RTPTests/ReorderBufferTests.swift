import Testing

@testable import RTP

@Suite struct ReorderBufferTests {
    static func packet(_ seq: UInt16) -> RTPPacket {
        RTPPacketBuilder(sequenceNumber: seq, ssrc: 1, payload: [UInt8(truncatingIfNeeded: seq)]).packet()
    }

    static func at(ms: Int64) -> ArrivalTime { ArrivalTime(nanoseconds: ms * 1_000_000) }

    enum Out: Equatable {
        case packet(UInt16)
        case loss(Int)
        case discontinuity
    }

    static func drain(_ buffer: inout ReorderBuffer, now: ArrivalTime) -> [Out] {
        var out: [Out] = []
        while let o = buffer.next(now: now) { out.append(Self.describe(o)) }
        return out
    }

    static func describe(_ o: ReorderBuffer.Output) -> Out {
        switch o {
        case .packet(let p, _): return .packet(p.sequenceNumber)
        case .loss(let l): return .loss(l.count)
        case .discontinuity: return .discontinuity
        }
    }

    /// Inserts `seqs` at 1 ms intervals, draining after each; returns everything released, then flushed.
    static func run(_ seqs: [UInt16], configuration: ReorderBuffer.Configuration = .init()) -> [Out] {
        var buffer = ReorderBuffer(configuration: configuration)
        var out: [Out] = []
        for (i, seq) in seqs.enumerated() {
            buffer.insert(packet(seq), arrival: at(ms: Int64(i)))
            out += drain(&buffer, now: at(ms: Int64(i)))
        }
        while let o = buffer.flush() { out.append(describe(o)) }
        return out
    }

    @Test func inOrderPacketsAreReleasedAtOnce() {
        var buffer = ReorderBuffer()
        for seq: UInt16 in 1...5 {
            #expect(buffer.insert(Self.packet(seq), arrival: Self.at(ms: 0)) == .buffered)
            #expect(Self.drain(&buffer, now: Self.at(ms: 0)) == [.packet(seq)])
        }
        #expect(buffer.count == 0)
    }

    @Test func swappedPacketsComeOutInOrder() {
        #expect(Self.run([1, 2, 4, 3, 5, 7, 6]) == [1, 2, 3, 4, 5, 6, 7].map(Out.packet))
    }

    @Test func theFirstPacketsMayArriveSwapped() {
        var buffer = ReorderBuffer()
        buffer.insert(Self.packet(11), arrival: Self.at(ms: 0))
        #expect(buffer.insert(Self.packet(10), arrival: Self.at(ms: 1)) == .buffered)
        #expect(Self.drain(&buffer, now: Self.at(ms: 1)) == [.packet(10), .packet(11)])
    }

    @Test func duplicatesAndLatePacketsAreDroppedAndCounted() {
        var buffer = ReorderBuffer()
        buffer.insert(Self.packet(1), arrival: Self.at(ms: 0))
        _ = Self.drain(&buffer, now: Self.at(ms: 0))
        buffer.insert(Self.packet(3), arrival: Self.at(ms: 0))
        #expect(buffer.insert(Self.packet(3), arrival: Self.at(ms: 0)) == .duplicate)
        #expect(buffer.insert(Self.packet(1), arrival: Self.at(ms: 0)) == .late)
        #expect(buffer.duplicates == 1)
        #expect(buffer.late == 1)
    }

    @Test func aGapIsHeldUntilMaxDelayThenReleasedAsLoss() {
        var buffer = ReorderBuffer(configuration: .init(maxDelay: .milliseconds(100)))
        buffer.insert(Self.packet(1), arrival: Self.at(ms: 0))
        buffer.insert(Self.packet(4), arrival: Self.at(ms: 10))
        #expect(Self.drain(&buffer, now: Self.at(ms: 10)) == [.packet(1)])
        #expect(Self.drain(&buffer, now: Self.at(ms: 109)) == [])
        #expect(Self.drain(&buffer, now: Self.at(ms: 110)) == [.loss(2), .packet(4)])
        #expect(buffer.lost == 2)
    }

    @Test func lossEventsNameTheFirstMissingSequence() {
        var buffer = ReorderBuffer(configuration: .init(maxDelay: .zero))
        buffer.insert(Self.packet(1), arrival: Self.at(ms: 0))
        buffer.insert(Self.packet(5), arrival: Self.at(ms: 0))
        guard case .packet(_, let first) = buffer.next(now: Self.at(ms: 0)),
            case .loss(let loss) = buffer.next(now: Self.at(ms: 0))
        else {
            Issue.record("expected a packet then a loss")
            return
        }
        #expect(loss == ReorderBuffer.Loss(firstSequence: first + 1, count: 3))
    }

    @Test func holdingMoreThanMaxPacketsReleasesTheGap() {
        var buffer = ReorderBuffer(configuration: .init(maxPackets: 3, maxDelay: .seconds(10)))
        buffer.insert(Self.packet(1), arrival: Self.at(ms: 0))
        _ = Self.drain(&buffer, now: Self.at(ms: 0))
        for seq: UInt16 in 3...5 { buffer.insert(Self.packet(seq), arrival: Self.at(ms: 0)) }
        #expect(Self.drain(&buffer, now: Self.at(ms: 0)) == [])
        buffer.insert(Self.packet(6), arrival: Self.at(ms: 0))
        #expect(Self.drain(&buffer, now: Self.at(ms: 0)) == [.loss(1), .packet(3), .packet(4), .packet(5), .packet(6)])
    }

    @Test func releasesInOrderAcrossTheSequenceWrap() {
        #expect(Self.run([65533, 65535, 65534, 1, 0, 2]) == [65533, 65534, 65535, 0, 1, 2].map(Out.packet))
    }

    @Test func extendedSequenceNumbersKeepIncreasingAcrossTheWrap() {
        var buffer = ReorderBuffer()
        var extended: [UInt64] = []
        for seq: UInt16 in [65534, 65535, 0, 1] {
            buffer.insert(Self.packet(seq), arrival: Self.at(ms: 0))
            while case .packet(_, let e)? = buffer.next(now: Self.at(ms: 0)) { extended.append(e) }
        }
        #expect(extended == [extended[0], extended[0] + 1, extended[0] + 2, extended[0] + 3])
    }

    @Test func aSenderRestartReleasesWhatWasHeldThenADiscontinuity() {
        let out = Self.run([1, 2, 4, 30000, 30001, 30002])
        #expect(out == [.packet(1), .packet(2), .loss(1), .packet(4), .discontinuity, .packet(30001), .packet(30002)])
    }

    @Test func aSingleWildPacketIsDropped() {
        var buffer = ReorderBuffer()
        buffer.insert(Self.packet(1), arrival: Self.at(ms: 0))
        #expect(buffer.insert(Self.packet(40000), arrival: Self.at(ms: 0)) == .jump)
        #expect(buffer.insert(Self.packet(2), arrival: Self.at(ms: 0)) == .buffered)
        #expect(Self.drain(&buffer, now: Self.at(ms: 0)) == [.packet(1), .packet(2)])
        #expect(buffer.jumps == 1)
    }

    @Test func jumpsWithinMaxDropoutAreLossNotRestarts() {
        let out = Self.run([1, 2000], configuration: .init(maxDelay: .zero))
        #expect(out == [.packet(1), .loss(1998), .packet(2000)])
    }

    @Test func flushReleasesEverythingWithGaps() {
        var buffer = ReorderBuffer(configuration: .init(maxDelay: .seconds(1)))
        for seq: UInt16 in [1, 3, 6] { buffer.insert(Self.packet(seq), arrival: Self.at(ms: 0)) }
        var out: [Out] = []
        while let o = buffer.flush() { out.append(Self.describe(o)) }
        #expect(out == [.packet(1), .loss(1), .packet(3), .loss(2), .packet(6)])
        #expect(buffer.count == 0)
        #expect(buffer.flush() == nil)
    }

    /// A camera that starts a new SSRC (per GOP, after an encoder restart): what the old source left is
    /// released, gaps as loss, then a discontinuity, then the new source from its first packet, whatever
    /// its sequence numbers; a late packet of the old source is dropped, not a second restart.
    @Test func aNewSSRCIsARestartAtOnceAndTheOldSourcesStragglersAreLate() {
        // The new source's timestamps start elsewhere, as a restarted sender's do.
        func packet(_ seq: UInt16, ssrc: UInt32) -> RTPPacket {
            RTPPacketBuilder(sequenceNumber: seq, timestamp: ssrc == 1 ? 0 : 0x6000_0000, ssrc: ssrc, payload: [1])
                .packet()
        }
        var buffer = ReorderBuffer()
        var out: [Out] = []
        // Old source 10, 12 (11 missing); new source at 11, 12: close to the old numbers, which must not matter.
        let arrivals: [(UInt16, UInt32)] = [(10, 1), (12, 1), (11, 2), (12, 2), (11, 1), (13, 2)]
        var results: [ReorderBuffer.InsertResult] = []
        for (i, (seq, ssrc)) in arrivals.enumerated() {
            results.append(buffer.insert(packet(seq, ssrc: ssrc), arrival: Self.at(ms: Int64(i))))
            out += Self.drain(&buffer, now: Self.at(ms: Int64(i)))
        }
        while let o = buffer.flush() { out.append(Self.describe(o)) }
        #expect(results == [.buffered, .buffered, .restart, .buffered, .late, .buffered])
        #expect(out == [.packet(10), .loss(1), .packet(12), .discontinuity, .packet(11), .packet(12), .packet(13)])
        #expect(buffer.sourceChanges == 1)
        #expect(buffer.restarts == 1)
        #expect(buffer.late == 1)
    }

    /// A proxy that renames its source every GOP, sequence numbers and timestamps carrying on: one stream,
    /// no restart, and the old name's stragglers are in order; a name whose numbers do not carry on (further
    /// than 64 packets or 2^20 ticks from the last) is a restart as before.
    @Test func aRelabelledSourceThatCarriesOnIsTheSameStream() {
        func packet(_ seq: UInt16, ssrc: UInt32, timestamp: UInt32) -> RTPPacket {
            RTPPacketBuilder(sequenceNumber: seq, timestamp: timestamp, ssrc: ssrc, payload: [1]).packet()
        }
        var buffer = ReorderBuffer()
        var out: [Out] = []
        let arrivals: [(UInt16, UInt32, UInt32)] = [
            (10, 1, 3000), (12, 1, 9000), (13, 2, 12000), (11, 1, 6000), (14, 2, 15000), (15, 3, 15000 + (1 << 21)),
        ]
        var results: [ReorderBuffer.InsertResult] = []
        for (i, (seq, ssrc, timestamp)) in arrivals.enumerated() {
            results.append(buffer.insert(packet(seq, ssrc: ssrc, timestamp: timestamp), arrival: Self.at(ms: Int64(i))))
            out += Self.drain(&buffer, now: Self.at(ms: Int64(i)))
        }
        while let o = buffer.flush() { out.append(Self.describe(o)) }
        #expect(results == [.buffered, .buffered, .buffered, .buffered, .buffered, .restart])
        #expect(out == [.packet(10), .packet(11), .packet(12), .packet(13), .packet(14), .discontinuity, .packet(15)])
        #expect(buffer.relabels == 1 && buffer.sourceChanges == 1 && buffer.late == 0)
        #expect(
            ReorderBuffer.carriesOn(sequence: 3, timestamp: 100, after: (65_534, 4_294_967_000))
                && !ReorderBuffer.carriesOn(sequence: 200, timestamp: 100, after: (100, 100)))
    }

    /// The ring starts sized for maxPackets (512 slots for 500) and grows when a packet lands further ahead.
    /// Here 8 packets wait behind a missing one, straddling the end of the ring (slots 507 to 514 of 512),
    /// when a packet 1,200 ahead arrives: the ring grows with them in it; the missing one then comes, and
    /// everything is released in order, the rest of the gap as one loss.
    @Test func aPacketBeyondTheRingGrowsItAndKeepsTheHeldOnesInOrder() {
        var buffer = ReorderBuffer()
        #expect(buffer.ringCapacity == 512)
        var out: [Out] = []
        for seq: UInt16 in [505] + Array(507...514) + Array(1_706...1_709) {
            #expect(buffer.insert(Self.packet(seq), arrival: Self.at(ms: 0)) == .buffered)
            out += Self.drain(&buffer, now: Self.at(ms: 0))
        }
        #expect(buffer.ringCapacity == 2_048)
        buffer.insert(Self.packet(506), arrival: Self.at(ms: 1))
        out += Self.drain(&buffer, now: Self.at(ms: 1))
        while let o = buffer.flush() { out.append(Self.describe(o)) }
        let expected: [Out] =
            (505...514).map { .packet(UInt16($0)) } + [.loss(1_191)]
            + (1_706...1_709).map { .packet(UInt16($0)) }
        #expect(out == expected)
        #expect(buffer.lost == 1_191 && buffer.duplicates == 0 && buffer.late == 0)
    }

    /// Swapped first packets further apart than the first ring still move the start back.
    @Test func earlyPacketsFarBehindTheFirstMoveTheStartBackAcrossAGrowth() {
        let configuration = ReorderBuffer.Configuration(maxPackets: 100)
        var buffer = ReorderBuffer(configuration: configuration)
        #expect(buffer.ringCapacity == 128)
        buffer.insert(Self.packet(1_000), arrival: Self.at(ms: 0))
        buffer.insert(Self.packet(1_150), arrival: Self.at(ms: 0))  // 150 ahead: grows to 256
        buffer.insert(Self.packet(950), arrival: Self.at(ms: 0))  // 50 behind the start, 200 behind the highest
        #expect(buffer.ringCapacity == 256)
        var out: [Out] = []
        while let o = buffer.flush() { out.append(Self.describe(o)) }
        #expect(out == [.packet(950), .loss(49), .packet(1_000), .loss(149), .packet(1_150)])
    }
}
