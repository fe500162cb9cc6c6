import Foundation
import PacketCapture
import RTP
import Testing

@testable import RTPDumpCore

/// The hand-over between a live session's event loop and rtpdump's commands: queued for a reader that
/// pulls, or run on the pushing thread for one that consumes in place (`forEachDatagram`).
@Suite struct PacketQueueTests {
    struct Failure: Error, Equatable { let name: String }

    static func packets(_ sequences: ClosedRange<UInt16>) throws -> [ReceivedItem] {
        try sequences.map { sequence in
            let bytes: [UInt8] = [0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0, 1, 0, 0, 0, 2, 0xAB]
            return try item(bytes)
        }
    }

    static func item(_ bytes: [UInt8]) throws -> ReceivedItem {
        let address = SocketAddress(address: .v4(0x7F00_0001), port: 5000)
        return ReceivedItem(
            .rtp(try RTPPacket(bytes)), source: address, destination: address, arrival: ArrivalTime(nanoseconds: 0))
    }

    /// Pushes `batches` from a thread of its own (as the event loop does) once a consumer runs on the
    /// pushing thread (a fixed sleep lost that race on a loaded machine), then ends the queue with `ending`.
    static func pushLater(
        _ queue: PacketQueue, _ batches: [ArraySlice<ReceivedItem>], ending: (any Error)?,
        pusher: ThreadMark? = nil
    ) {
        Thread.detachNewThread {
            pusher?.mark()
            for _ in 0..<10_000 where !queue.hasConsumer { Thread.sleep(forTimeInterval: 0.001) }
            for batch in batches { queue.push(batch) }
            queue.end(ending)
        }
    }

    /// `--duration` is up while the reader is far behind (a decoder under 200 Mbit/s drained its backlog for
    /// 53.6 s of a 12 s run): the reader sees the end at once, what it had not read and what still comes
    /// is counted, not queued.
    @Test func cutAtTheDeadlineEndsTheReaderAtOnceAndCountsWhatWasLeft() throws {
        let queue = PacketQueue()
        queue.push(try Self.packets(1...100)[...])
        #expect(try queue.next()?.sequenceNumber == 1)
        queue.cut()
        #expect(try queue.next() == nil)
        queue.push(try Self.packets(101...110)[...])
        #expect(try queue.next() == nil)
        #expect(queue.unreadAtCut == 109 && queue.held.packets == 0)
    }

    @Test func aConsumerTakesWhatWasQueuedHereThenEachPushOnThePushingThread() throws {
        let queue = PacketQueue()
        queue.push(try Self.packets(1...3)[...])
        let later = try Self.packets(4...9)
        // The pushing thread told by its pthread identity: thread names read through Foundation were the
        // test's own thread's name on the pusher under load.
        let pusher = ThreadMark()
        Self.pushLater(queue, [later[..<2], later[2...]], ending: nil, pusher: pusher)
        var seen: [(UInt16, onPusher: Bool)] = []
        try queue.consumeOnPushingThread(
            { seen.append(($0.sequenceNumber ?? 0, pusher.isCurrent)) },
            stop: { Issue.record("stop is for a consumer that fails") })
        #expect(seen.map(\.0) == Array(1...9))
        #expect(seen.prefix(3).allSatisfy { !$0.onPusher })
        #expect(seen.dropFirst(3).allSatisfy { $0.onPusher }, "\(seen)")
    }

    @Test func aConsumerThatThrowsStopsTheSessionAndSeesNothingMore() throws {
        let queue = PacketQueue()
        Self.pushLater(queue, [try Self.packets(1...4)[...], try Self.packets(5...8)[...]], ending: nil)
        var seen: [UInt16] = []
        var stops = 0
        #expect(throws: Failure(name: "disk full")) {
            try queue.consumeOnPushingThread(
                { packet in
                    seen.append(packet.sequenceNumber ?? 0)
                    if packet.sequenceNumber == 2 { throw Failure(name: "disk full") }
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

    /// A reader that stops reading (`decode URL --md5 | less`): the queue keeps the newest packets up to its
    /// bounds and lets go of the rest's storage, counting what it dropped. It grew without bound before.
    @Test func aReaderThatStopsReadingCostsAtMostTheBoundsInPackets() throws {
        let queue = PacketQueue()
        let batch = try Self.packets(1...1000)[...]
        for _ in 0..<200 { queue.push(batch) }
        #expect(queue.dropped == 200_000 - PacketQueue.capacity)
        #expect(queue.held.packets == PacketQueue.capacity)
        // The first packet read is the oldest kept: 200,000 pushed, the last 65,536 kept.
        #expect(try queue.next()?.sequenceNumber == UInt16((200_000 - PacketQueue.capacity) % 1000 + 1))
    }

    @Test func aReaderThatStopsReadingCostsAtMostTheBoundsInBytes() throws {
        let queue = PacketQueue()
        let large = try (1...100).map { sequence -> ReceivedItem in
            try Self.item(
                [0x80, 96, 0, UInt8(sequence), 0, 0, 0, 1, 0, 0, 0, 2] + [UInt8](repeating: 0xAB, count: 60_000))
        }
        for _ in 0..<30 { queue.push(large[...]) }  // 180 MB pushed
        let held = PacketQueue.byteCapacity / 60_012
        #expect(queue.dropped == 3000 - held)
        #expect(queue.held.packets == held)
        #expect(queue.held.bytes <= PacketQueue.byteCapacity)
        var read = 0
        while read < held, try queue.next() != nil { read += 1 }
        #expect(read == held)
        #expect(queue.held == (0, 0))
    }
}

extension ReceivedItem {
    /// The sequence number of an RTP packet.
    fileprivate var sequenceNumber: UInt16? {
        if case .rtp(let packet) = content { return packet.sequenceNumber }
        return nil
    }
}

/// A thread, marked by its pthread identity, to ask later whether code runs on it.
final class ThreadMark: @unchecked Sendable {
    // @unchecked: `thread` is only read and written under `lock`.
    private let lock = NSLock()
    private var thread: pthread_t?

    /// Marks the calling thread.
    func mark() {
        lock.lock()
        thread = pthread_self()
        lock.unlock()
    }

    /// Whether the calling thread is the one marked.
    var isCurrent: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let thread else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }
}
