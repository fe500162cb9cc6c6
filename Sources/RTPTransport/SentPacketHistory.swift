import NIOConcurrencyHelpers
import RTP

/// What was sent to one viewer, kept for its feedback: each track's last packets as they went out (protected), to
/// be sent again when the viewer asks for them (RFC 4585's Generic NACK; the same SRTP packet again, which a
/// receiver that lost it accepts), and when each sender report went, to tell the round trip from the viewer's
/// reports (RFC 3550 section 6.4.1: LSR and DLSR). Bounded by count and bytes; shared between the source's
/// pushing thread, which records, and the viewer's event loop, which reads.
public final class SentPacketHistory: @unchecked Sendable {
    /// Packets kept per history: at 2 Mbit/s of 1,200-byte packets about 2.5 s.
    public static let capacity = 512
    /// Bytes kept at most.
    public static let byteCapacity = 2 << 20

    private let lock = NIOLock()
    private var packets: [(ssrc: UInt32, sequenceNumber: UInt16, bytes: [UInt8])?]
    private var next = 0
    private var bytes = 0
    private var reports: [(middle: UInt32, sentAt: ArrivalTime)] = []

    /// Tests' loss: every Nth packet recorded is not sent (as if the network lost it), so that feedback can be
    /// tried against real receivers.
    private let dropsEvery: Int?
    private var recorded = 0

    public init() {
        packets = Array(repeating: nil, count: Self.capacity)
        dropsEvery = nil
    }

    package init(droppingEvery count: Int?) {
        packets = Array(repeating: nil, count: Self.capacity)
        dropsEvery = count.map { max(2, $0) }
    }

    /// Whether the packet just recorded is to be lost on the way (tests' loss only).
    package func dropsLastRecorded() -> Bool {
        guard let dropsEvery else { return false }
        return lock.withLock { recorded % dropsEvery == 0 }
    }

    /// Records a packet as it went out.
    public func record(ssrc: UInt32, sequenceNumber: UInt16, protected: [UInt8]) {
        lock.withLock {
            if let old = packets[next] { bytes -= old.bytes.count }
            packets[next] = (ssrc, sequenceNumber, protected)
            bytes += protected.count
            recorded += 1
            next = (next + 1) % Self.capacity
            // Over the byte budget: the oldest go first.
            var oldest = next
            while bytes > Self.byteCapacity, let old = packets[oldest] {
                bytes -= old.bytes.count
                packets[oldest] = nil
                oldest = (oldest + 1) % Self.capacity
            }
        }
    }

    /// The packet of `ssrc` with `sequenceNumber`, as it went out, if it is still kept.
    public func packet(ssrc: UInt32, sequenceNumber: UInt16) -> [UInt8]? {
        lock.withLock {
            packets.lazy.compactMap { $0 }.first { $0.ssrc == ssrc && $0.sequenceNumber == sequenceNumber }?.bytes
        }
    }

    /// Records a sender report as it went out (its NTP time's middle 32 bits, what a report block's LSR echoes).
    public func recordReport(ntpTimestamp: UInt64, at time: ArrivalTime) {
        lock.withLock {
            reports.append((UInt32(truncatingIfNeeded: ntpTimestamp >> 16), time))
            if reports.count > 16 { reports.removeFirst(reports.count - 16) }
        }
    }

    /// The round trip a report block tells, received at `now`: now − when the report it names went − the delay the
    /// viewer says it held it. Nil when it names none (LSR 0) or one no longer kept.
    public func roundTrip(_ block: RTCPReportBlock, receivedAt now: ArrivalTime) -> Duration? {
        guard block.lastSenderReport != 0 else { return nil }
        let sent = lock.withLock { reports.last { $0.middle == block.lastSenderReport }?.sentAt }
        guard let sent else { return nil }
        let held = Duration.nanoseconds(Int64(block.delaySinceLastSenderReport) * 1_000_000_000 / 65536)
        let trip = now - sent - held
        return trip >= .zero ? trip : .zero
    }
}
