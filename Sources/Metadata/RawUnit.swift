import RTP

/// The payloads of one unit of a track the library does not take apart (KLV, MPEG-TS, a vendor's data),
/// joined in sequence order and handed on as they came: a unit ends at a packet with the marker bit, or where
/// the timestamp changes (for senders that never set it).
public struct RawUnit: Sendable {
    /// The RTP payload type of its packets.
    public let payloadType: UInt8
    /// The RTP timestamp extended to 64 bits (it never wraps), at ``clockRate``.
    public let timestamp: UInt64
    /// The track's RTP clock rate (the SDP's; 90000 when it names none).
    public let clockRate: Int
    /// The payloads, back to back: copied once, from the packets.
    public let bytes: [UInt8]
    /// The SSRC of the source whose packets it was made from.
    public let ssrc: UInt32
    /// Whether a packet with the marker bit ended it (false: the timestamp changed, or the stream ended).
    public let endedByMarker: Bool
    /// Whether it was cut at its depacketizer's `maxUnitSize`: the bytes beyond were passed over.
    public let isTruncated: Bool
    /// RTP packets lost in it or since the previous unit (0: nothing is missing). A unit with loss is handed
    /// on all the same, its pieces joined around the gap: what is missing is for the application to judge.
    public var lostPackets: Int
    /// When the sender captured it, on its wall clock, once its sender has reported.
    public var captureTime: WallClockTime?
    /// The track it belongs to, by index in its source.
    public var track = 0
    /// Whether it is its track's first unit after a break (a reconnect, a new source).
    public var isDiscontinuity = false
    /// Whether its timestamp stepped from its track's previous unit's by more than the pipeline's bound
    /// (`MediaPipeline.timestampJumpBound`, 10 s): a sender whose clock jumped, in an unbroken stream (what came
    /// before is still there to refer to). Its timestamp starts a new run: a recorder goes on from where it was
    /// rather than losing what follows. Set by `MediaPipeline`.
    public var isTimestampJump = false

    /// The RTP timestamp as sent (32 bits).
    public var rtpTimestamp: UInt32 { UInt32(truncatingIfNeeded: timestamp) }

    /// This unit with its ``captureTime`` from `clock` (unchanged without a clock or a report).
    public func captured(by clock: SenderClock?) -> RawUnit {
        guard let time = clock?.wallClock(rtpTimestamp: timestamp) else { return self }
        var unit = self
        unit.captureTime = time
        return unit
    }
}

extension RawUnit: CustomStringConvertible {
    /// One line a person reads: `raw unit of payload type 98, track 3, RTP time 9000: 188 bytes, ...`.
    public var description: String {
        var parts = ["\(bytes.count) bytes"]
        if lostPackets > 0 { parts.append("\(lostPackets) packets lost") }
        if isTruncated { parts.append("cut at its bound") }
        if let captureTime { parts.append("captured \(captureTime)") }
        return
            "raw unit of payload type \(payloadType), track \(track), RTP time \(UInt32(truncatingIfNeeded: timestamp)): "
            + parts.joined(separator: ", ")
    }
}
