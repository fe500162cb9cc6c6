import NIOConcurrencyHelpers
import NIOCore
import PacketCapture

/// Received items (a live session's packets and sender reports) from the event loop to a synchronous
/// reader, which waits for them.
///
/// Bounded in packets and in bytes: a reader that falls behind (a stalled pipe, a slow disk) loses the
/// oldest packets, counted in ``dropped``, and the queue holds no more than its bounds.
final class PacketQueue: @unchecked Sendable {
    /// Packets held for a reader that falls behind before the oldest are dropped.
    static let capacity = 65_536
    /// Bytes of packets held for such a reader before the oldest are dropped.
    static let byteCapacity = 64 << 20

    /// 1 when a waiter has something to wake for: for the reader, packets or the end; for a consumer on the
    /// pushing thread, the end or its own failure. 0 otherwise.
    private let lock = ConditionLock(value: 0)
    private var packets = CircularBuffer<ReceivedItem>(initialCapacity: 1024)
    /// Bytes of the packets held.
    private var bytes = 0
    private var droppedCount = 0
    private var cutCount = 0
    private var isCut = false
    private var ended = false
    /// Set by ``consumeOnPushingThread(_:stop:)``: what each pushed packet goes to instead of the queue.
    private var consumer: ((ReceivedItem) throws -> Void)?
    private var consumerFailure: (any Error)?
    private var failure: (any Error)?

    func push(_ batch: some Collection<ReceivedItem>) {
        lock.lock()
        defer { unlockTellingWaiters() }
        guard !isCut else { return cutCount += batch.count }
        if let consumer {
            do {
                for packet in batch { try consumer(packet) }
            } catch {
                consumerFailure = error
                self.consumer = nil
            }
            return
        }
        for packet in batch {
            packets.append(packet)
            bytes += packet.byteCount
        }
        while packets.count > Self.capacity || bytes > Self.byteCapacity, let oldest = packets.popFirst() {
            bytes -= oldest.byteCount
            droppedCount += 1
        }
    }

    /// Unlocks with the value that says whether a waiter has something to wake for.
    private func unlockTellingWaiters() {
        let wake = ended || consumerFailure != nil || (consumer == nil && !packets.isEmpty)
        lock.unlock(withValue: wake ? 1 : 0)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { unlockTellingWaiters() }
        return try body()
    }

    /// Packets dropped, oldest first, because the reader fell behind by more than ``capacity`` packets or
    /// ``byteCapacity`` bytes.
    var dropped: Int { locked { droppedCount } }

    /// Whether a consumer runs on the pushing thread now (``consumeOnPushingThread(_:stop:)``).
    var hasConsumer: Bool { locked { consumer != nil } }

    /// What the queue holds: packets, and their bytes.
    var held: (packets: Int, bytes: Int) { locked { (packets.count, bytes) } }

    /// Packets held when the queue was cut (``cut()``), never read.
    var unreadAtCut: Int { locked { cutCount } }

    /// The reader's time is up: what is held is dropped (counted in ``unreadAtCut``), nothing more is
    /// queued, and the reader sees the end at once, however far behind it was.
    func cut() {
        locked {
            cutCount += packets.count
            packets.removeAll()
            bytes = 0
            isCut = true
            ended = true
        }
    }

    func end(_ error: (any Error)?) {
        locked {
            ended = true
            failure = error
        }
    }

    /// Runs `consumer` on every packet in order (first those queued, here; then each batch on the thread that
    /// pushes it, under the lock) until the session ends or `consumer` throws; then calls `stop` and
    /// rethrows. Returns when the session has ended, throwing its error if it failed.
    func consumeOnPushingThread(
        _ consumer: @escaping (ReceivedItem) throws -> Void, stop: () -> Void
    ) throws {
        locked {
            do {
                while let packet = packets.popFirst() {
                    bytes -= packet.byteCount
                    try consumer(packet)
                }
            } catch {
                self.consumerFailure = error
            }
            packets.removeAll(keepingCapacity: true)
            bytes = 0
            if self.consumerFailure == nil { self.consumer = consumer }
        }
        lock.lock(whenValue: 1)  // the end, or the consumer's failure
        self.consumer = nil
        let (consumerFailure, failure) = (self.consumerFailure, self.failure)
        unlockTellingWaiters()
        if let consumerFailure {
            stop()
            throw consumerFailure
        }
        if let failure { throw failure }
    }

    func next() throws -> ReceivedItem? {
        lock.lock(whenValue: 1)  // packets, or the end
        defer { unlockTellingWaiters() }
        guard let packet = packets.popFirst() else {
            if let failure { throw failure }
            return nil
        }
        bytes -= packet.byteCount
        return packet
    }
}
