import NIOConcurrencyHelpers
import RTP

/// The RTP packets of a session in arrival order: an `AsyncSequence` of ``RTSPReceivedPacket``.
///
/// The event loop hands packets over in batches, one per socket read, so that a consumer wakes once
/// per read rather than once per packet. Iterate it once: it is a single-consumer sequence.
public struct RTSPPackets: AsyncSequence, Sendable {
    public typealias Element = RTSPReceivedPacket

    /// Packets handed over and not yet taken by the consumer, and their bytes.
    struct Backlog {
        var packets = 0
        var bytes = 0
    }

    let batches: AsyncThrowingStream<[RTSPReceivedPacket], any Error>
    let backlog: NIOLockedValueBox<Backlog>
    /// Each track's sender clock, from its RTCP sender reports (the event loop writes, consumers read).
    let clocks: NIOLockedValueBox<[Int: SenderClock]>

    /// The wall-clock time of RTP timestamp `timestamp` of `track`, once its sender has reported.
    public func wallClock(track: Int, rtpTimestamp timestamp: UInt64) -> WallClockTime? {
        clocks.withLockedValue { $0[track] }?.wallClock(rtpTimestamp: timestamp)
    }

    /// The sender clock of the stream with SSRC `ssrc`, once its sender has reported.
    public func senderClock(ssrc: UInt32) -> SenderClock? {
        clocks.withLockedValue { clocks in clocks.values.first { $0.ssrc == ssrc } }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var batches: AsyncThrowingStream<[RTSPReceivedPacket], any Error>.AsyncIterator
        let backlog: NIOLockedValueBox<Backlog>
        let clocks: NIOLockedValueBox<[Int: SenderClock]>
        var batch: [RTSPReceivedPacket] = []
        var index = 0

        public mutating func next() async throws -> RTSPReceivedPacket? {
            while index == batch.count {
                guard let next = try await batches.next() else { return nil }
                let bytes = next.reduce(0) { $0 + $1.packet.bytes.count }
                backlog.withLockedValue {
                    $0.packets -= next.count
                    $0.bytes -= bytes
                }
                batch = next
                index = 0
            }
            index += 1
            return batch[index - 1]
        }

        /// The sender clock of `track`, as the latest sender report set it, if that came from `ssrc`: a track
        /// whose source changed (a reconnect, a camera's restart) is not dated by the old source's clock.
        func clock(track: Int, ssrc: UInt32?) -> SenderClock? {
            guard let ssrc, let clock = clocks.withLockedValue({ $0[track] }), clock.ssrc == ssrc else { return nil }
            return clock
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(batches: batches.makeAsyncIterator(), backlog: backlog, clocks: clocks)
    }
}
