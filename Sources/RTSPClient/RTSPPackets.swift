import NIOConcurrencyHelpers

/// The RTP packets of a session in arrival order: an `AsyncSequence` of ``RTSPReceivedPacket``.
///
/// The event loop hands packets over in batches, one per socket read, so that a consumer wakes once
/// per read rather than once per packet. Iterate it once: it is a single-consumer sequence.
public struct RTSPPackets: AsyncSequence, Sendable {
    public typealias Element = RTSPReceivedPacket

    let batches: AsyncThrowingStream<[RTSPReceivedPacket], any Error>
    /// Packets handed over and not yet taken by the consumer.
    let backlog: NIOLockedValueBox<Int>

    public struct AsyncIterator: AsyncIteratorProtocol {
        var batches: AsyncThrowingStream<[RTSPReceivedPacket], any Error>.AsyncIterator
        let backlog: NIOLockedValueBox<Int>
        var batch: [RTSPReceivedPacket] = []
        var index = 0

        public mutating func next() async throws -> RTSPReceivedPacket? {
            while index == batch.count {
                guard let next = try await batches.next() else { return nil }
                backlog.withLockedValue { $0 -= next.count }
                batch = next
                index = 0
            }
            index += 1
            return batch[index - 1]
        }

        /// The rest of the current batch and, when it is used up, the next whole batch: for consumers
        /// that hand packets on in bulk (one wake-up per read).
        public mutating func nextBatch() async throws -> ArraySlice<RTSPReceivedPacket>? {
            if index < batch.count {
                defer { index = batch.count }
                return batch[index...]
            }
            guard let next = try await batches.next() else { return nil }
            backlog.withLockedValue { $0 -= next.count }
            batch = next
            index = next.count
            return next[...]
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(batches: batches.makeAsyncIterator(), backlog: backlog)
    }
}
