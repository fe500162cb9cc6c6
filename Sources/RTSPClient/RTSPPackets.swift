import NIOConcurrencyHelpers
import RTP
import Synchronization

/// The RTP packets of a session in arrival order: an `AsyncSequence` of ``RTSPReceivedPacket``.
///
/// The event loop hands packets over in batches, one per socket read, so that a consumer wakes once
/// per read rather than once per packet. Iterate it once: it is a single-consumer sequence.
public struct RTSPPackets: AsyncSequence, Sendable {
    public typealias Element = RTSPReceivedPacket

    /// What one read delivered: the packets, and the sender reports that came with them.
    struct Batch: Sendable {
        var packets: [RTSPReceivedPacket]
        var senderReports: [ReceivedSenderReport]
        /// How many seeks had been answered when it was handed over.
        var position = 0
    }

    /// How many seeks have been answered: the driver counts, the consumer drops what was handed over before
    /// the latest (the old position's packets, still waiting to be taken).
    final class Position: Sendable {
        let seeks = Atomic<Int>(0)
    }

    /// Packets handed over and not yet taken by the consumer, and their bytes.
    struct Backlog {
        var packets = 0
        var bytes = 0
    }

    let batches: AsyncThrowingStream<Batch, any Error>
    let backlog: NIOLockedValueBox<Backlog>
    let position: Position

    public struct AsyncIterator: AsyncIteratorProtocol {
        var batches: AsyncThrowingStream<Batch, any Error>.AsyncIterator
        let backlog: NIOLockedValueBox<Backlog>
        let position: Position
        var batch: [RTSPReceivedPacket] = []
        var batchPosition = 0
        var index = 0
        /// Sender reports that came with the batches read so far, not yet taken.
        var senderReports: [ReceivedSenderReport] = []

        public mutating func next() async throws -> RTSPReceivedPacket? {
            while true {
                while index == batch.count {
                    guard let next = try await batches.next() else { return nil }
                    let bytes = next.packets.reduce(0) { $0 + $1.packet.bytes.count }
                    backlog.withLockedValue {
                        $0.packets -= next.packets.count
                        $0.bytes -= bytes
                    }
                    senderReports += next.senderReports
                    batch = next.packets
                    batchPosition = next.position
                    index = 0
                }
                // Handed over before the latest seek was answered: the old position's, dropped.
                guard batchPosition < position.seeks.load(ordering: .relaxed) else { break }
                index = batch.count
            }
            index += 1
            return batch[index - 1]
        }

        /// The sender reports that came with the packets taken so far (and the batch they belong to).
        mutating func takeSenderReports() -> [ReceivedSenderReport] {
            defer { senderReports = [] }
            return senderReports
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(batches: batches.makeAsyncIterator(), backlog: backlog, position: position)
    }
}

/// An RTP packet received in an ``RTSPSession``, in arrival order (not yet reordered): the library's one
/// received-packet value, ``ReceivedPacket``. Its track indexes ``RTSPSession/tracks``;
/// its discontinuity marks the first packet of a track after ``RTSPSession/resume()`` (the server dropped
/// what it did not send while paused: the sequence numbers jump there with nothing lost on the way).
public typealias RTSPReceivedPacket = ReceivedPacket
