import RTP
import TestSupport
import Testing

@_spi(SansIO) @testable import RTPTransport

/// The retransmission ring: what a NACK gets back is the packet as it went out, never another's bytes, and what
/// it keeps is bounded by count and bytes while the newest packets stay.
struct SentPacketHistoryTests {
    /// A packet whose bytes say which it is: its sequence number and SSRC, repeated to `length` bytes.
    static func packet(ssrc: UInt32, sequenceNumber: UInt16, length: Int) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: Int(sequenceNumber) &* 31 &+ Int(ssrc) &+ $0) }
    }

    @Test func aPacketComesBackAsItWentOut() {
        let history = SentPacketHistory()
        let video = Self.packet(ssrc: 1, sequenceNumber: 7, length: 1_200)
        let audio = Self.packet(ssrc: 2, sequenceNumber: 7, length: 160)
        history.record(ssrc: 1, sequenceNumber: 7, protected: video)
        history.record(ssrc: 2, sequenceNumber: 7, protected: audio)
        #expect(history.packet(ssrc: 1, sequenceNumber: 7) == video)
        #expect(history.packet(ssrc: 2, sequenceNumber: 7) == audio)  // the same number on another track
        #expect(history.packet(ssrc: 1, sequenceNumber: 8) == nil)
        #expect(history.packet(ssrc: 3, sequenceNumber: 7) == nil)
    }

    @Test func atMostCapacityPacketsAreKept() {
        let history = SentPacketHistory()
        let total = SentPacketHistory.capacity + 10
        for number in 0..<total {
            history.record(
                ssrc: 1, sequenceNumber: UInt16(number),
                protected: Self.packet(ssrc: 1, sequenceNumber: UInt16(number), length: 20))
        }
        for number in 0..<10 { #expect(history.packet(ssrc: 1, sequenceNumber: UInt16(number)) == nil) }
        for number in 10..<total {
            #expect(
                history.packet(ssrc: 1, sequenceNumber: UInt16(number))
                    == Self.packet(ssrc: 1, sequenceNumber: UInt16(number), length: 20))
        }
    }

    /// Packets of every size up to an MTU's, many times round the ring: each one asked for is either gone or
    /// exactly the one recorded last under its number, and the newest that fit in the ring less two packets'
    /// room (what the end of the ring may leave unused) are all there.
    @Test func theRingKeepsTheNewestBytesAndNeverAnothersBytes() {
        let history = SentPacketHistory()
        var generator = SplitMix64(seed: 42)
        var sent: [(ssrc: UInt32, number: UInt16, length: Int)] = []
        for step in 0..<20_000 {
            let ssrc: UInt32 = step % 5 == 0 ? 2 : 1
            let number = UInt16(truncatingIfNeeded: step)
            let length = Int(generator.next() % 1_500) + 1
            history.record(
                ssrc: ssrc, sequenceNumber: number,
                protected: Self.packet(ssrc: ssrc, sequenceNumber: number, length: length))
            sent.append((ssrc, number, length))
            if step % 997 == 0 {
                var bytes = 0
                var newest = true
                for packet in sent.reversed() {
                    bytes += packet.length
                    newest = newest && bytes <= SentPacketHistory.byteCapacity - 2 * 1_500
                    let kept = history.packet(ssrc: packet.ssrc, sequenceNumber: packet.number)
                    if newest {
                        #expect(
                            kept == Self.packet(ssrc: packet.ssrc, sequenceNumber: packet.number, length: packet.length)
                        )
                    } else if bytes > SentPacketHistory.byteCapacity {
                        break  // older than the ring can hold
                    }
                }
            }
        }
        for packet in sent.suffix(100) {
            #expect(
                history.packet(ssrc: packet.ssrc, sequenceNumber: packet.number)
                    == Self.packet(ssrc: packet.ssrc, sequenceNumber: packet.number, length: packet.length))
        }
    }

    /// A sequence number sent again while its first packet is still kept (a source that restarted its
    /// numbering): the newer packet is the one given back, and stays when the older one goes.
    @Test func aNumberSentAgainGivesTheNewerPacket() {
        let history = SentPacketHistory()
        let older = Self.packet(ssrc: 1, sequenceNumber: 5, length: 100)
        let newer = Self.packet(ssrc: 1, sequenceNumber: 6, length: 90)
        history.record(ssrc: 1, sequenceNumber: 5, protected: older)
        history.record(ssrc: 1, sequenceNumber: 5, protected: newer)
        #expect(history.packet(ssrc: 1, sequenceNumber: 5) == newer)
        for number in 1..<SentPacketHistory.capacity {  // the older one goes, by count
            history.record(ssrc: 2, sequenceNumber: UInt16(number), protected: [1, 2, 3])
        }
        #expect(history.packet(ssrc: 1, sequenceNumber: 5) == newer)
        history.record(ssrc: 2, sequenceNumber: 0, protected: [1, 2, 3])  // and then the newer
        #expect(history.packet(ssrc: 1, sequenceNumber: 5) == nil)
    }

    @Test func aPacketLargerThanTheRingIsNotKept() {
        let history = SentPacketHistory()
        history.record(ssrc: 1, sequenceNumber: 1, protected: Self.packet(ssrc: 1, sequenceNumber: 1, length: 100))
        history.record(
            ssrc: 1, sequenceNumber: 2, protected: [UInt8](repeating: 1, count: SentPacketHistory.byteCapacity + 1))
        history.record(ssrc: 1, sequenceNumber: 3, protected: [])
        #expect(history.packet(ssrc: 1, sequenceNumber: 2) == nil)
        #expect(history.packet(ssrc: 1, sequenceNumber: 3) == nil)
        #expect(history.packet(ssrc: 1, sequenceNumber: 1) == Self.packet(ssrc: 1, sequenceNumber: 1, length: 100))
    }
}
