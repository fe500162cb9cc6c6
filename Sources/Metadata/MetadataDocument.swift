import RTP

/// One ONVIF metadata document (`application/vnd.onvif.metadata`, ONVIF Streaming Specification 5.2.1.1): the
/// XML of a `tt:MetadataStream` (analytics frames, events, PTZ status) as the camera sent it, decompressed
/// when it came gzip-compressed, with its timestamp and, once the track's sender has reported, the wall-clock
/// time it describes.
public struct MetadataDocument: Sendable {
    /// The RTP timestamp extended to 64 bits (it never wraps), at ``clockRate``.
    public let timestamp: UInt64
    /// The track's RTP clock rate (90000 as ONVIF says, or the SDP's).
    public let clockRate: Int
    /// The document's bytes (UTF-8 XML), whole: a document that lost a piece is not handed on.
    public let bytes: [UInt8]
    /// The SSRC of the source whose packets it was made from.
    public let ssrc: UInt32
    /// RTP packets lost since the previous document: documents were lost with them (0: none was).
    public var lostPacketsBefore: Int
    /// When the sender captured it, on its wall clock, once its sender has reported.
    public var captureTime: WallClockTime?
    /// The track it belongs to, by index in its source.
    public var track = 0
    /// Whether it is its track's first document after a break (a reconnect, a new source).
    public var isDiscontinuity = false
    /// Whether its timestamp stepped from its track's previous unit's by more than the pipeline's bound
    /// (`MediaPipeline.timestampJumpBound`, 10 s): a sender whose clock jumped, in an unbroken stream (what came
    /// before is still there to refer to). Its timestamp starts a new run: a recorder goes on from where it was
    /// rather than losing what follows. Set by `MediaPipeline`.
    public var isTimestampJump = false

    /// The document as text; nil when its bytes are not UTF-8.
    public var text: String? { String(validating: bytes, as: UTF8.self) }

    /// The RTP timestamp as sent (32 bits).
    public var rtpTimestamp: UInt32 { UInt32(truncatingIfNeeded: timestamp) }

    /// This document with its ``captureTime`` from `clock` (unchanged without a clock or a report).
    public func captured(by clock: SenderClock?) -> MetadataDocument {
        guard let time = clock?.wallClock(rtpTimestamp: timestamp) else { return self }
        var document = self
        document.captureTime = time
        return document
    }
}

extension MetadataDocument: CustomStringConvertible {
    /// One line a person reads: `metadata document, track 2, RTP time 9000: 812 bytes, captured ...`.
    public var description: String {
        var parts = ["\(bytes.count) bytes"]
        if lostPacketsBefore > 0 { parts.append("\(lostPacketsBefore) packets lost before it") }
        if let captureTime { parts.append("captured \(captureTime)") }
        return "metadata document, track \(track), RTP time \(rtpTimestamp): " + parts.joined(separator: ", ")
    }
}
