import RTSPClient

/// Packets from the event loop to a synchronous reader, which waits for them.
final class PacketQueue: @unchecked Sendable {
    /// Packets held for a reader that falls behind before the oldest are dropped.
    static let capacity = 65_536

    private let condition = ThreadCondition()
    private var packets: [RTSPReceivedPacket] = []
    private var head = 0
    private var ended = false
    /// The reader is waiting for packets (then a push wakes it).
    private var waiting = false
    /// Set by ``consumeOnPushingThread(_:stop:)``: what each pushed packet goes to instead of the queue.
    private var consumer: ((RTSPReceivedPacket) throws -> Void)?
    private var consumerFailure: (any Error)?
    private var failure: (any Error)?

    func push(_ batch: ArraySlice<RTSPReceivedPacket>) {
        condition.lock()
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
        packets.append(contentsOf: batch)
        if packets.count - head > Self.capacity { head = packets.count - Self.capacity }
        let wake = waiting
        condition.unlock()
        // Signalled after unlocking, and only when the reader sleeps: a reader woken while the lock is still
        // held would only block again on it.
        if wake { condition.signal() }
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
            while head < packets.count {
                head += 1
                try consumer(packets[head - 1])
            }
        } catch {
            consumerFailure = error
        }
        packets.removeAll(keepingCapacity: true)
        head = 0
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
        if head == packets.count || (head > 4096 && head * 2 > packets.count) {
            // Release what was taken (it holds the packets' bytes): all of it, keeping the storage, once
            // caught up; or the taken half, for a reader that stays behind.
            packets.removeFirst(head)
            head = 0
        }
        while head == packets.count && !ended {
            waiting = true
            condition.wait()
            waiting = false
        }
        guard head < packets.count else {
            if let failure { throw failure }
            return nil
        }
        head += 1
        return packets[head - 1]
    }
}
