import RTP

/// Joins the payloads of a track the library does not take apart into ``RawUnit``s, in sequence order (behind
/// a `ReorderBuffer`): a unit ends at a packet with the marker bit, where the timestamp changes, or at the end
/// of the stream. Nothing is read inside the payloads; a unit past ``Configuration/maxUnitSize`` is cut there
/// and the rest of it passed over, counted and flagged (``RawUnit/isTruncated``).
///
/// ```swift
/// var depacketizer = RawDepacketizer(configuration: .init(payloadType: 97, clockRate: 1000))  // KLV, say
/// depacketizer.push(packet)
/// while let unit = depacketizer.nextUnit() { handle(unit.bytes) }
/// ```
///
/// A unit taken and let go of before the next one starts leaves its buffer to the next: in steady state
/// nothing is allocated.
public struct RawDepacketizer: Sendable {
    /// Settings.
    public struct Configuration: Sendable, Hashable {
        /// Packets of other payload types are skipped (nil: every packet is taken).
        public var payloadType: UInt8?
        /// The track's RTP clock rate, for the units.
        public var clockRate: Int
        /// The largest unit: its bytes beyond are passed over (1 KiB to 64 MiB).
        public var maxUnitSize: Int

        public init(payloadType: UInt8? = nil, clockRate: Int = 90_000, maxUnitSize: Int = 1 << 20) {
            self.payloadType = payloadType
            self.clockRate = clockRate
            self.maxUnitSize = min(max(maxUnitSize, 1 << 10), 64 << 20)
        }
    }

    /// What was counted so far.
    public struct Statistics: Sendable, Hashable {
        public var units = 0
        /// Units cut at ``Configuration/maxUnitSize``.
        public var oversizedUnits = 0
        /// Packets of another payload type than ``Configuration/payloadType``, skipped.
        public var otherPayloadTypePackets = 0
        public init() {}
    }

    public let configuration: Configuration
    public private(set) var statistics = Statistics()

    private var timestamps = TimestampExtender()
    private var buffer: [UInt8] = []
    /// The unit being received: its timestamp, SSRC and payload type (nil: none is).
    private var current: (timestamp: UInt64, ssrc: UInt32, payloadType: UInt8)?
    private var oversized = false
    /// Packets lost since the last unit ended.
    private var pendingLoss = 0
    private var completed: [RawUnit] = []

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        completed.reserveCapacity(2)
    }

    /// Takes the next packet in sequence order.
    public mutating func push(_ packet: RTPPacket) {
        if let expected = configuration.payloadType, packet.payloadType != expected {
            statistics.otherPayloadTypePackets += 1
            return
        }
        let timestamp = timestamps.extend(packet.timestamp)
        if let unit = current, unit.timestamp != timestamp { finish(marker: false) }
        if current == nil {
            // The unit handed on last shares this storage until it is taken and let go of: then emptying it
            // keeps the storage; else a new buffer is made.
            buffer.removeAll(keepingCapacity: true)
            oversized = false
            current = (timestamp, packet.ssrc, packet.payloadType)
        }
        let payload = packet.payload
        if buffer.count + payload.count > configuration.maxUnitSize {
            if !oversized { statistics.oversizedUnits += 1 }
            oversized = true
            buffer.append(contentsOf: payload.prefix(max(0, configuration.maxUnitSize - buffer.count)))
        } else {
            buffer.append(contentsOf: payload)
        }
        if packet.marker { finish(marker: true) }
    }

    /// Tells it that `count` packets before the next one were lost: counted on the unit they belonged to (the one
    /// being received, or the next).
    public mutating func noteLoss(_ count: Int) {
        pendingLoss += max(0, count)
    }

    /// Ends the stream: a unit being received is handed on as it is.
    public mutating func flush() {
        finish(marker: false)
    }

    /// Ends the stream where it broke: a unit being received is handed on as it is, its end counted as a lost
    /// packet.
    public mutating func cutOff() {
        if current != nil { pendingLoss += 1 }
        finish(marker: false)
        timestamps = TimestampExtender()
    }

    /// The oldest unit completed and not yet taken; nil until the next push or flush.
    public mutating func nextUnit() -> RawUnit? {
        completed.takeOldest()
    }

    private mutating func finish(marker: Bool) {
        guard let unit = current else { return }
        completed.append(
            RawUnit(
                payloadType: unit.payloadType, timestamp: unit.timestamp, clockRate: configuration.clockRate,
                bytes: buffer, ssrc: unit.ssrc, endedByMarker: marker, isTruncated: oversized, lostPackets: pendingLoss)
        )
        statistics.units += 1
        pendingLoss = 0
        current = nil
    }
}
