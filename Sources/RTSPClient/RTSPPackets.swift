import NIOConcurrencyHelpers
import RTP
@_spi(SansIO) import RTSP
import Synchronization

/// The RTP packets of a session in arrival order: an `AsyncSequence` of ``RTSPReceivedPacket``.
///
/// The event loop hands packets over in batches, one per socket read, so that a consumer wakes once
/// per read rather than once per packet. Iterate it once: it is a single-consumer sequence. A second iterator
/// (or one of a second sequence of the session's: ``RTSPSession/media(tracks:reorder:audioReorder:)``,
/// ``RTSPSession/accessUnits(tracks:reorder:)``...) throws ``RTSPClientError`` `.invalidCall` rather than take
/// packets from the first.
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

    /// Who reads the packets: the first sequence made of them (``RTSPSession/media(tracks:reorder:audioReorder:)``
    /// and its kin), or the first iterator of the packets themselves; each reader iterates once.
    final class Claim: Sendable {
        private let state = Mutex<(owner: String?, iterated: Bool)>((nil, false))

        /// Takes the packets for a sequence of them (`call`: what the application called, to name in a refusal).
        func take(for call: String) throws(RTSPClientError) {
            let owner = state.withLock { state -> String? in
                if let owner = state.owner { return owner }
                state.owner = call
                return nil
            }
            if let owner { throw Self.refusal(call: call, owner: owner) }
        }

        /// An iterator of the packets is made, for the sequence that took them (`owner`) or for the packets
        /// themselves (nil): nil when it may read them, else the refusal its `next()` throws.
        func iteratorMade(for owner: String?) -> RTSPClientError? {
            state.withLock { state -> RTSPClientError? in
                let reader = owner ?? "packets"
                if state.owner == nil && owner == nil { state.owner = reader }
                guard state.owner == reader, !state.iterated else {
                    return Self.refusal(
                        call: owner.map { "a second iterator of \($0)" } ?? "an iterator of packets",
                        owner: state.owner ?? reader)
                }
                state.iterated = true
                return nil
            }
        }

        static func refusal(call: String, owner: String) -> RTSPClientError {
            RTSPClientError(
                .invalidCall,
                "\(call): the session's packets are already read by \(owner); they are read once. To take video and "
                    + "audio together, iterate media() and switch on each unit (.video, .audio)")
        }
    }

    let batches: AsyncThrowingStream<Batch, any Error>
    let backlog: NIOLockedValueBox<Backlog>
    let position: Position
    let claim: Claim

    public struct AsyncIterator: AsyncIteratorProtocol {
        var batches: AsyncThrowingStream<Batch, any Error>.AsyncIterator
        let backlog: NIOLockedValueBox<Backlog>
        let position: Position
        var batch: [RTSPReceivedPacket] = []
        var batchPosition = 0
        var index = 0
        /// Sender reports that came with the batches read so far, not yet taken.
        var senderReports: [ReceivedSenderReport] = []
        /// Why this iterator reads nothing: another reads the packets.
        var refusal: RTSPClientError?

        public mutating func next() async throws -> RTSPReceivedPacket? {
            if let refusal { throw refusal }
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

    public func makeAsyncIterator() -> AsyncIterator { makeAsyncIterator(for: nil) }

    /// An iterator for the sequence that took the packets (`owner`: its call), or for the packets themselves.
    func makeAsyncIterator(for owner: String?) -> AsyncIterator {
        var iterator = AsyncIterator(batches: batches.makeAsyncIterator(), backlog: backlog, position: position)
        iterator.refusal = claim.iteratorMade(for: owner)
        return iterator
    }
}

/// An RTP packet received in an ``RTSPSession``, in arrival order (not yet reordered): the library's one
/// received-packet value, ``ReceivedPacket``. Its track indexes ``RTSPSession/tracks``;
/// its discontinuity marks the first packet of a track after ``RTSPSession/resume()`` (the server dropped
/// what it did not send while paused: the sequence numbers jump there with nothing lost on the way).
public typealias RTSPReceivedPacket = ReceivedPacket
