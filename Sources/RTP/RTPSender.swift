/// The sending side of one RTP stream (RFC 3550): it numbers the stream's packets, turns its media timestamps
/// into RTP timestamps from a random start, counts what it sent, and says what its sender reports say: the
/// RTP time that goes with a wall-clock time.
///
/// ```swift
/// var sender = RTPSender(payloadType: 96, clockRate: 90_000)
/// var packet: [UInt8] = []
/// sender.append(payload: payload, marker: isLast, timestamp: unit.timestamp, capturedAt: now, to: &packet)
/// let report = sender.senderReport(at: now)   // every 5 s, on the stream's RTCP
/// ```
///
/// It does no I/O: its packets go wherever their bytes are written
/// (``nextHeader(marker:timestamp:payloadSize:capturedAt:)``
/// gives the 12-byte header alone, for a buffer of another kind).
public struct RTPSender: Sendable {
    public let ssrc: UInt32
    public let payloadType: UInt8
    public let clockRate: Int
    /// The sequence number of the next packet.
    public private(set) var nextSequenceNumber: UInt16
    /// Added to every media timestamp (RFC 3550 section 5.1: the first RTP timestamp is random).
    public let timestampOffset: UInt32
    /// Packets and payload bytes sent (each wraps at 2^32, as the sender report carries them).
    public private(set) var packetCount: UInt32 = 0
    public private(set) var octetCount: UInt32 = 0
    /// The last packet's RTP timestamp and the wall-clock time it was captured at: what reports extrapolate
    /// from.
    public private(set) var lastTimestamp: (rtp: UInt32, wallClock: WallClockTime)?

    /// The largest RTP payload the packetizers make by default: an Ethernet MTU of 1500 less the IPv6, UDP, RTP
    /// and SRTP headers, with room to spare.
    public static let defaultMaxPayloadSize = 1400

    /// A stream with `ssrc`, its first sequence number and timestamp offset random unless given.
    public init(
        payloadType: UInt8, clockRate: Int, ssrc: UInt32 = .random(in: 1...UInt32.max),
        firstSequenceNumber: UInt16 = .random(in: 0...UInt16.max), timestampOffset: UInt32 = .random(in: 0...UInt32.max)
    ) {
        self.payloadType = payloadType & 0x7F
        self.clockRate = max(1, clockRate)
        self.ssrc = ssrc
        self.nextSequenceNumber = firstSequenceNumber
        self.timestampOffset = timestampOffset
    }

    /// The RTP timestamp of a media timestamp (in ticks of ``clockRate``).
    public func rtpTimestamp(_ timestamp: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: timestamp) &+ timestampOffset
    }

    /// The header of the next packet, counted as sent with `payloadSize` bytes of payload: version 2, no
    /// padding or CSRCs, an extension when `hasExtension` (which the caller writes after it). `capturedAt` is the wall-clock time of the media timestamp (the unit's
    /// capture time, or when it was sent).
    package mutating func nextHeader(
        marker: Bool, timestamp: UInt64, payloadSize: Int, capturedAt: WallClockTime, hasExtension: Bool = false
    ) -> RTPHeaderWords {
        let rtp = rtpTimestamp(timestamp)
        let header = RTPHeaderWords(
            marker: marker, payloadType: payloadType, sequenceNumber: nextSequenceNumber, timestamp: rtp, ssrc: ssrc,
            hasExtension: hasExtension)
        nextSequenceNumber &+= 1
        packetCount &+= 1
        octetCount &+= UInt32(truncatingIfNeeded: payloadSize)
        lastTimestamp = (rtp, capturedAt)
        return header
    }

    /// Appends the next packet (header, then `payload`) to `out`.
    public mutating func append(
        payload: some Collection<UInt8>, marker: Bool, timestamp: UInt64, capturedAt: WallClockTime,
        to out: inout [UInt8]
    ) {
        let header = nextHeader(
            marker: marker, timestamp: timestamp, payloadSize: payload.count, capturedAt: capturedAt)
        header.append(to: &out)
        out.append(contentsOf: payload)
    }

    /// The sender report for `time` (RFC 3550 section 6.4.1): the RTP time extrapolated from the last packet's
    /// at the clock rate, with the counts. Nil before the first packet.
    public func senderReport(at time: WallClockTime) -> RTCPSenderReport? {
        guard let last = lastTimestamp else { return nil }
        let elapsed = Double(Int64(bitPattern: time.ntp &- last.wallClock.ntp)) / 4_294_967_296
        let ticks = Int64((elapsed * Double(clockRate)).rounded())
        return RTCPSenderReport(
            ssrc: ssrc, ntpTimestamp: time.ntp, rtpTimestamp: last.rtp &+ UInt32(truncatingIfNeeded: ticks),
            packetCount: packetCount, octetCount: octetCount)
    }
}
