import Testing

@testable import RTSPClient

/// The pool that received packets are copied into: copies are exact, a packet still held keeps its
/// bytes, and a packet let go of gives its storage to a later one (no allocation per packet).
@Suite struct PacketBufferPoolTests {
    static func copy(_ bytes: [UInt8], into pool: inout PacketBufferPool) -> [UInt8] {
        bytes.withUnsafeBytes { pool.copy($0) }
    }

    static func address(_ array: [UInt8]) -> UnsafeRawPointer? {
        array.withUnsafeBytes { $0.baseAddress }
    }

    @Test func aCopyHoldsTheBytesGiven() {
        var pool = PacketBufferPool(count: 2, capacity: 16)
        #expect(Self.copy([1, 2, 3], into: &pool) == [1, 2, 3])
        let large = (0..<5000).map { UInt8(truncatingIfNeeded: $0) }
        #expect(Self.copy(large, into: &pool) == large)  // larger than a slot's capacity: the slot grows
        #expect(Self.copy([], into: &pool) == [])
    }

    @Test func aPacketStillHeldKeepsItsBytesWhenItsSlotComesRound() {
        var pool = PacketBufferPool(count: 2, capacity: 16)
        let held = Self.copy([7, 7, 7], into: &pool)
        _ = Self.copy([8], into: &pool)
        let third = Self.copy([9, 9], into: &pool)  // the held packet's slot again
        #expect(held == [7, 7, 7])
        #expect(third == [9, 9])
        #expect(Self.address(third) != Self.address(held))
    }

    @Test func aPacketLetGoOfLendsItsStorageToALaterOne() {
        var pool = PacketBufferPool(count: 3, capacity: 64)
        var first: [UInt8]? = Self.copy([1, 2, 3, 4], into: &pool)
        let storage = first.map(Self.address) ?? nil
        first = nil
        _ = Self.copy([5], into: &pool)
        _ = Self.copy([6], into: &pool)
        let reused = Self.copy([10, 11], into: &pool)  // the first slot again, no longer shared
        #expect(reused == [10, 11])
        #expect(storage != nil)
        #expect(Self.address(reused) == storage)
    }

    /// A slot grown for a large packet (a 64 KiB interleaved frame) does not lend that size to the small packets
    /// after it: each copy made while a consumer holds the slot's storage would keep it (a backchannel server
    /// flooding such frames made 4096 held small packets cost 281 MB).
    @Test func smallPacketsDoNotKeepALargeOnesCapacity() {
        var pool = PacketBufferPool(count: 2, capacity: 2048)
        var held: [[UInt8]] = [Self.copy([UInt8](repeating: 1, count: 65_000), into: &pool)]
        for index in 0..<100 { held.append(Self.copy([UInt8(truncatingIfNeeded: index)], into: &pool)) }
        #expect(held.dropFirst().allSatisfy { $0.capacity <= 4096 }, "\(held.dropFirst().map(\.capacity).max() ?? 0)")
        #expect(held.dropFirst().map { $0[0] } == (0..<100).map { UInt8($0) })
    }
}
