import Foundation
import RTP
import RTSPClient
import Testing

@testable import RTPDumpCore

/// The hand-over between a live session's event loop and rtpdump's commands: queued for a reader that
/// pulls, or run on the pushing thread for one that consumes in place (`forEachDatagram`).
@Suite struct PacketQueueTests {
    struct Failure: Error, Equatable { let name: String }

    static func packets(_ sequences: ClosedRange<UInt16>) throws -> [RTSPReceivedPacket] {
        try sequences.map { sequence in
            let bytes: [UInt8] = [0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0, 1, 0, 0, 0, 2, 0xAB]
            return RTSPReceivedPacket(track: 0, packet: try RTPPacket(bytes), arrival: ArrivalTime(nanoseconds: 0))
        }
    }

    /// Pushes `batches` from a thread of its own (as the event loop does), a little after it starts, then
    /// ends the queue with `ending`.
    static func pushLater(_ queue: PacketQueue, _ batches: [ArraySlice<RTSPReceivedPacket>], ending: (any Error)?) {
        Thread.detachNewThread {
            Thread.current.name = "pusher"
            Thread.sleep(forTimeInterval: 0.05)
            for batch in batches { queue.push(batch) }
            queue.end(ending)
        }
    }

    @Test func aConsumerTakesWhatWasQueuedHereThenEachPushOnThePushingThread() throws {
        let queue = PacketQueue()
        queue.push(try Self.packets(1...3)[...])
        let later = try Self.packets(4...9)
        Self.pushLater(queue, [later[..<2], later[2...]], ending: nil)
        var seen: [(UInt16, String?)] = []
        try queue.consumeOnPushingThread(
            { seen.append(($0.packet.sequenceNumber, Thread.current.name)) },
            stop: { Issue.record("stop is for a consumer that fails") })
        #expect(seen.map(\.0) == Array(1...9))
        #expect(seen.prefix(3).allSatisfy { $0.1 != "pusher" })
        #expect(seen.dropFirst(3).allSatisfy { $0.1 == "pusher" })
    }

    @Test func aConsumerThatThrowsStopsTheSessionAndSeesNothingMore() throws {
        let queue = PacketQueue()
        Self.pushLater(queue, [try Self.packets(1...4)[...], try Self.packets(5...8)[...]], ending: nil)
        var seen: [UInt16] = []
        var stops = 0
        #expect(throws: Failure(name: "disk full")) {
            try queue.consumeOnPushingThread(
                { packet in
                    seen.append(packet.packet.sequenceNumber)
                    if packet.packet.sequenceNumber == 2 { throw Failure(name: "disk full") }
                },
                stop: { stops += 1 })
        }
        Thread.sleep(forTimeInterval: 0.1)  // the second batch comes after the failure
        #expect(seen == [1, 2])
        #expect(stops == 1)
    }

    @Test func theSessionsFailureEndsTheConsumerWithIt() throws {
        let queue = PacketQueue()
        Self.pushLater(queue, [try Self.packets(1...2)[...]], ending: Failure(name: "no media"))
        var seen = 0
        #expect(throws: Failure(name: "no media")) {
            try queue.consumeOnPushingThread({ _ in seen += 1 }, stop: { Issue.record("the consumer did not fail") })
        }
        #expect(seen == 2)
    }
}
