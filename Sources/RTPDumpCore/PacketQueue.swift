import NIOCore
import RTSPClient

/// Packets from the event loop to a synchronous reader, which waits for them.
///
/// Bounded in packets and in bytes: a reader that falls behind (a stalled pipe, a slow disk) loses the
/// oldest packets, counted in ``dropped``, and the queue holds no more than its bounds.
final class PacketQueue: @unchecked Sendable {
    /// Packets held for a reader that falls behind before the oldest are dropped.
    static let capacity = 65_536
    /// Bytes of packets held for such a reader before the oldest are dropped.
    static let byteCapacity = 64 << 20

    private let condition = ThreadCondition()
    private var packets = CircularBuffer<RTSPReceivedPacket>(initialCapacity: 1024)
    /// Bytes of the packets held.
    private var bytes = 0
    private var droppedCount = 0
    private var cutCount = 0
    private var isCut = false
    private var ended = false
    /// The reader is waiting for packets (then a push wakes it).
    private var waiting = false
    /// Set by ``consumeOnPushingThread(_:stop:)``: what each pushed packet goes to instead of the queue.
    private var consumer: ((RTSPReceivedPacket) throws -> Void)?
    private var consumerFailure: (any Error)?
    private var failure: (any Error)?

    func push(_ batch: ArraySlice<RTSPReceivedPacket>) {
        condition.lock()
        guard !isCut else {
            cutCount += batch.count
            return condition.unlock()
        }
        if let consumer {
            defer { condition.unlock() }
            do {
                for packet in batch { try consumer(packet) }
            } catch {
                consumerFailure = error
                self.consumer = nil
                condition.signal()
            }
            return
        }
        for packet in batch {
            packets.append(packet)
            bytes += packet.packet.bytes.count
        }
        while packets.count > Self.capacity || bytes > Self.byteCapacity, let oldest = packets.popFirst() {
            bytes -= oldest.packet.bytes.count
            droppedCount += 1
        }
        let wake = waiting
        condition.unlock()
        // Signalled after unlocking, and only when the reader sleeps: a reader woken while the lock is still
        // held would only block again on it.
        if wake { condition.signal() }
    }

    /// Packets dropped, oldest first, because the reader fell behind by more than ``capacity`` packets or
    /// ``byteCapacity`` bytes.
    var dropped: Int { condition.withLock { droppedCount } }

    /// Whether a consumer runs on the pushing thread now (``consumeOnPushingThread(_:stop:)``).
    var hasConsumer: Bool { condition.withLock { consumer != nil } }

    /// What the queue holds: packets, and their bytes.
    var held: (packets: Int, bytes: Int) { condition.withLock { (packets.count, bytes) } }

    /// Packets held when the queue was cut (``cut()``), never read.
    var unreadAtCut: Int { condition.withLock { cutCount } }

    /// The reader's time is up: what is held is dropped (counted in ``unreadAtCut``), nothing more is
    /// queued, and the reader sees the end at once, however far behind it was.
    func cut() {
        condition.lock()
        cutCount += packets.count
        packets.removeAll()
        bytes = 0
        isCut = true
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    func end(_ error: (any Error)?) {
        condition.lock()
        ended = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// Runs `consumer` on every packet in order (first those queued, here; then each batch on the thread that
    /// pushes it, under the lock) until the session ends or `consumer` throws; then calls `stop` and
    /// rethrows. Returns when the session has ended, throwing its error if it failed.
    func consumeOnPushingThread(
        _ consumer: @escaping (RTSPReceivedPacket) throws -> Void, stop: () -> Void
    ) throws {
        condition.lock()
        defer { condition.unlock() }
        do {
            while let packet = packets.popFirst() {
                bytes -= packet.packet.bytes.count
                try consumer(packet)
            }
        } catch {
            consumerFailure = error
        }
        packets.removeAll(keepingCapacity: true)
        bytes = 0
        if consumerFailure == nil { self.consumer = consumer }
        while !ended && consumerFailure == nil { condition.wait() }
        self.consumer = nil
        if let consumerFailure {
            stop()
            throw consumerFailure
        }
        if let failure { throw failure }
    }

    func next() throws -> RTSPReceivedPacket? {
        condition.lock()
        defer { condition.unlock() }
        while packets.isEmpty && !ended {
            waiting = true
            condition.wait()
            waiting = false
        }
        guard let packet = packets.popFirst() else {
            if let failure { throw failure }
            return nil
        }
        bytes -= packet.packet.bytes.count
        return packet
    }
}
