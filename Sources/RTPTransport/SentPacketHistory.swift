import NIOConcurrencyHelpers
@_spi(SansIO) import RTP

/// What was sent to one viewer, kept for its feedback: each track's last packets as they went out (protected), to
/// be sent again when the viewer asks for them (RFC 4585's Generic NACK; the same SRTP packet again, which a
/// receiver that lost it accepts), and when each sender report went, to tell the round trip from the viewer's
/// reports (RFC 3550 section 6.4.1: LSR and DLSR). Shared between the source's pushing thread, which records, and
/// the viewer's event loop, which reads.
///
/// The packets are copied into one ring of ``byteCapacity`` bytes, allocated once, the oldest overwritten first,
/// and found by SSRC and sequence number through an index of at most ``capacity`` entries: recording allocates
/// nothing, and a viewer costs the ring and the index whatever its packets' sizes (a packet kept in an array of
/// its own cost about three times its size in the allocator's pieces).
@_spi(SansIO) public final class SentPacketHistory: @unchecked Sendable {
    /// Packets kept at most.
    public static let capacity = 1024
    /// Bytes kept at most: at 2 Mbit/s of 1,250-byte packets about 2 s, at 4 Mbit/s about 1 s (RFC 4585 asks
    /// for a retransmission buffer of at least the round trip; browsers ask for a packet within about 1 s).
    public static let byteCapacity = 512 << 10

    private struct Slot {
        var key: UInt64
        var offset: Int
        var length: Int
    }

    private let lock = NIOLock()
    private var storage: [UInt8]
    /// The packets kept, oldest first from `first`, as a ring of `capacity` slots.
    private var slots: [Slot]
    private var first = 0
    private var count = 0
    /// Where the next packet's bytes go in `storage`.
    private var writeOffset = 0
    /// The slot of each packet kept, by SSRC and sequence number.
    private var index: [UInt64: Int] = [:]
    private var reports: [(middle: UInt32, sentAt: ArrivalTime)] = []

    /// Tests' loss: every Nth packet recorded is not sent (as if the network lost it), so that feedback can be
    /// tried against real receivers.
    private let dropsEvery: Int?
    private var recorded = 0

    public convenience init() { self.init(droppingEvery: nil) }

    package init(droppingEvery count: Int?) {
        storage = Array(repeating: 0, count: Self.byteCapacity)
        slots = Array(repeating: Slot(key: 0, offset: 0, length: 0), count: Self.capacity)
        index.reserveCapacity(Self.capacity)
        dropsEvery = count.map { max(2, $0) }
    }

    /// Whether the packet just recorded is to be lost on the way (tests' loss only).
    package func dropsLastRecorded() -> Bool {
        guard let dropsEvery else { return false }
        return lock.withLock { recorded % dropsEvery == 0 }
    }

    private static func key(ssrc: UInt32, sequenceNumber: UInt16) -> UInt64 {
        UInt64(ssrc) << 16 | UInt64(sequenceNumber)
    }

    /// Records a packet as it went out. One larger than the ring is not kept.
    public func record(ssrc: UInt32, sequenceNumber: UInt16, protected: [UInt8]) {
        protected.withUnsafeBytes { record(ssrc: ssrc, sequenceNumber: sequenceNumber, protected: $0) }
    }

    /// Records a packet as it went out, from the buffer it was protected in. One larger than the ring is not kept.
    public func record(ssrc: UInt32, sequenceNumber: UInt16, protected: UnsafeRawBufferPointer) {
        lock.withLock {
            recorded += 1
            let length = protected.count
            guard length > 0, length <= Self.byteCapacity else { return }
            if writeOffset + length > Self.byteCapacity {
                // No room before the end: what is kept past here is the oldest, and goes; writing starts over.
                while count > 0, slots[first].offset >= writeOffset { evictOldest() }
                writeOffset = 0
            }
            // The oldest packets lie just past the write position: those the new one overwrites go.
            while count > 0,
                count == Self.capacity
                    || (slots[first].offset >= writeOffset && slots[first].offset < writeOffset + length)
            {
                evictOldest()
            }
            storage.withUnsafeMutableBytes { ring in
                UnsafeMutableRawBufferPointer(rebasing: ring[writeOffset..<writeOffset + length]).copyMemory(
                    from: protected)
            }
            let key = Self.key(ssrc: ssrc, sequenceNumber: sequenceNumber)
            let slot = (first + count) % Self.capacity
            slots[slot] = Slot(key: key, offset: writeOffset, length: length)
            index[key] = slot
            count += 1
            writeOffset += length
        }
    }

    private func evictOldest() {
        let oldest = slots[first]
        if index[oldest.key] == first { index[oldest.key] = nil }  // not a newer packet of the same number
        first = (first + 1) % Self.capacity
        count -= 1
    }

    /// The packet of `ssrc` with `sequenceNumber`, as it went out, if it is still kept.
    public func packet(ssrc: UInt32, sequenceNumber: UInt16) -> [UInt8]? {
        lock.withLock {
            guard let slot = index[Self.key(ssrc: ssrc, sequenceNumber: sequenceNumber)] else { return nil }
            return Array(storage[slots[slot].offset..<slots[slot].offset + slots[slot].length])
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
