import RTP
import SDP

/// One coded audio frame as the sender made it: an AAC access unit, an Opus packet, or a G.711 / L16 /
/// G.722 / G.726 packet's samples, with its timestamp and what the receiver knows of the loss before it.
///
/// The bytes are a view into the packet they came in (no copy), except for an AAC access unit fragmented
/// over several packets, which is put together once.
public struct AudioFrame: Sendable {
    public let codec: AudioCodec
    /// The RTP timestamp extended to 64 bits (it never wraps), at ``clockRate``.
    public let timestamp: UInt64
    /// The track's RTP clock: its sampling rate (48000 for Opus).
    public let clockRate: Int
    /// Samples per channel it holds when its header or its format says (0 when unknown), at the format's
    /// sampling rate (`AudioFormat.sampleRate`: 16 kHz for G.722 on its 8000 Hz clock, 48 kHz for Opus).
    public let sampleCount: Int
    /// The coded bytes: an AAC raw data block, an Opus packet, G.711 bytes, L16 big-endian samples, G.722 or
    /// G.726 code words.
    public let bytes: ArraySlice<UInt8>
    /// The SSRC of the source it came from: whose sender reports date it.
    public let ssrc: UInt32
    /// RTP packets lost since the previous frame of its track: the audio between the two is missing (0:
    /// nothing is). A frame is never made of pieces around a loss; one that lost a piece is left out, and
    /// counted here on the next.
    public var lostPacketsBefore: Int
    /// When the sender captured it, on its wall clock, once a sender report has come.
    public var captureTime: WallClockTime?
    /// The track it belongs to, by index in its source (a session's tracks, a pipeline's).
    public var track = 0
    /// Whether it is its track's first frame after a break (a reconnect, a new source): its timestamp does
    /// not follow the previous frame's.
    public var isDiscontinuity = false
    /// Whether its timestamp stepped from its track's previous unit's by more than the pipeline's bound
    /// (`MediaPipeline.timestampJumpBound`, 10 s): a sender whose clock jumped, in an unbroken stream (what came
    /// before is still there to refer to). Its timestamp starts a new run: a recorder goes on from where it was
    /// rather than losing what follows. Set by `MediaPipeline`.
    public var isTimestampJump = false

    public init(
        codec: AudioCodec, timestamp: UInt64, clockRate: Int, sampleCount: Int, bytes: ArraySlice<UInt8>,
        ssrc: UInt32, lostPacketsBefore: Int = 0
    ) {
        self.codec = codec
        self.timestamp = timestamp
        self.clockRate = clockRate
        self.sampleCount = sampleCount
        self.bytes = bytes
        self.ssrc = ssrc
        self.lostPacketsBefore = lostPacketsBefore
    }

    /// The RTP timestamp as sent (32 bits).
    public var rtpTimestamp: UInt32 { UInt32(truncatingIfNeeded: timestamp) }

    /// This frame with its ``captureTime`` from `clock` (unchanged without a clock or a report).
    public func captured(by clock: SenderClock?) -> AudioFrame {
        guard let time = clock?.wallClock(rtpTimestamp: timestamp) else { return self }
        var frame = self
        frame.captureTime = time
        return frame
    }
}

extension AudioFrame: CustomStringConvertible {
    /// One line a person reads: `MPEG4-GENERIC frame, track 1, RTP time 1024: 1024 samples, 256 bytes,
    /// captured 2026-01-01T00:00:00.023220Z`.
    public var description: String {
        var parts = ["\(sampleCount) samples", "\(bytes.count) bytes"]
        if lostPacketsBefore > 0 { parts.append("\(lostPacketsBefore) packets lost before it") }
        if isDiscontinuity { parts.append("after a break") }
        if isTimestampJump { parts.append("its timestamp jumped") }
        if let captureTime { parts.append("captured \(captureTime)") }
        return "\(codec) frame, track \(track), RTP time \(UInt32(truncatingIfNeeded: timestamp)): "
            + parts.joined(separator: ", ")
    }
}

extension AudioFrame {
    /// The same frame with its bytes in an array of their own: what a frame kept for long costs (a pre-roll),
    /// where its bytes are otherwise a view into the packet (and the read buffer) they came in. One copy.
    public func compacted() -> AudioFrame {
        var frame = AudioFrame(
            codec: codec, timestamp: timestamp, clockRate: clockRate, sampleCount: sampleCount,
            bytes: Array(bytes)[...], ssrc: ssrc, lostPacketsBefore: lostPacketsBefore)
        frame.captureTime = captureTime
        frame.track = track
        frame.isDiscontinuity = isDiscontinuity
        frame.isTimestampJump = isTimestampJump
        return frame
    }
}
