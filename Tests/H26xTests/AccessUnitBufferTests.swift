import RTP
import Testing

@testable import H26x

/// What an access unit's buffer costs a consumer that keeps units (an async iterator hands each one on
/// after the depacketizer has moved on; a recorder keeps a GOP).
@Suite struct AccessUnitBufferTests {
    /// 3,000 pictures of 30 KB, each held until the next is emitted. The buffer each unit keeps must stay
    /// near what the units need: it used to grow by a page per unit (the allocator's rounding, taken as
    /// capacity when the shared buffer was emptied), to some 12 MB per unit here and without end in a session.
    @Test func aHeldAccessUnitKeepsABufferSizedForTheUnits() {
        var depacketizer = H26xDepacketizer(codec: .h264)
        var held: AccessUnit?
        var capacities: [Int] = []
        var units = 0
        let picture = Packets.idr(30_000)
        for index in 0..<3_000 {
            let packet = Packets.rtp(UInt16(truncatingIfNeeded: index), ts: UInt32(index) * 3000, marker: true, picture)
            depacketizer.push(packet)
            while let unit = depacketizer.nextAccessUnit() {
                if let held { capacities.append(held.nalUnits.storage.capacity) }
                held = unit
                units += 1
            }
        }
        #expect(units == 3_000)
        // After the first units (the first buffer is reserved larger): twice the minimum (64 KiB) at most, with
        // the allocator's rounding; the old code reached 12 MB.
        #expect((capacities.dropFirst(2).max() ?? 0) <= 2 * AccessUnitAssembler.minimumBufferCapacity + 4096)
    }

    /// Units that vary in size (a keyframe every 30 pictures, 8 times a P picture): the buffer is sized for
    /// the keyframe, so keyframes are not copied again as the buffer grows, and still bounded when held.
    @Test func theBufferFollowsTheLargestRecentUnit() {
        var depacketizer = H26xDepacketizer(codec: .h264)
        var held: AccessUnit?
        var capacities: [Int] = []
        for index in 0..<600 {
            let nal = index % 30 == 0 ? Packets.idr(400_000) : Packets.slice(50_000)
            let packet = Packets.rtp(UInt16(truncatingIfNeeded: index), ts: UInt32(index) * 3000, marker: true, nal)
            depacketizer.push(packet)
            while let unit = depacketizer.nextAccessUnit() {
                if let held { capacities.append(held.nalUnits.storage.capacity) }
                held = unit
            }
        }
        let steady = capacities.dropFirst(60)
        // Room for the keyframe and its eighth, twice at most (the bound before a buffer starts again).
        #expect(steady.allSatisfy { $0 >= 400_000 && $0 <= 2 * (400_004 + 400_004 / 8) + 4096 })
    }

    /// A consumer that lets go of each unit before handing in the next packet (a `for await` body, a writer)
    /// gets every unit in the same storage: nothing is allocated per unit.
    @Test func aUnitLetGoBeforeTheNextPacketLeavesItsBufferToTheNext() {
        var depacketizer = H26xDepacketizer(codec: .h264)
        var addresses: [UInt] = []
        for index in 0..<200 {
            var taken: [AccessUnit] = []
            let packet = Packets.rtp(UInt16(index), ts: UInt32(index) * 3000, marker: true, Packets.idr(30_000))
            depacketizer.push(packet)
            while let unit = depacketizer.nextAccessUnit() { taken.append(unit) }
            for unit in taken {
                unit.nalUnits.storage.withUnsafeBufferPointer { addresses.append(UInt(bitPattern: $0.baseAddress)) }
            }
        }
        // The first unit's buffer (reserved larger) is replaced once by one sized for the units, which every
        // unit after uses. (A new buffer per unit alternates between two addresses as the allocator reuses them.)
        #expect(addresses.count == 200)
        #expect(Set(addresses.dropFirst(2)).count == 1)
    }
}
