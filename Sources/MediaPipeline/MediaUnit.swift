import Audio
import H26x
import Metadata
import RTP

/// One unit of a track's media, whatever the payload: what every ``Depacketizer`` gives and every source
/// hands on (an RTSP session, a capture, an `RTPTransport`). Each names its track and carries its capture
/// time on the sender's wall clock once the track's sender has reported, so the tracks of one source line
/// up on it. Loss is told on the unit (``AccessUnit/lostPackets``, ``AudioFrame/lostPacketsBefore``);
/// nothing is spliced.
public enum MediaUnit: Sendable {
    /// A coded picture's NAL units (H.264, H.265).
    case video(AccessUnit)
    /// A coded audio frame (AAC, Opus, G.711, L16, G.722, G.726).
    case audio(AudioFrame)
    /// An ONVIF metadata document (XML, inflated when it came gzip-compressed).
    case metadata(MetadataDocument)
    /// The payloads of a track the library does not take apart, up to a marker bit: KLV, MPEG-TS, a vendor's.
    case raw(RawUnit)

    /// The track it belongs to, by index in its source.
    public var track: Int {
        switch self {
        case .video(let unit): unit.track
        case .audio(let frame): frame.track
        case .metadata(let document): document.track
        case .raw(let unit): unit.track
        }
    }

    /// The RTP timestamp extended to 64 bits (it never wraps), at ``clockRate``.
    public var timestamp: UInt64 {
        switch self {
        case .video(let unit): unit.timestamp
        case .audio(let frame): frame.timestamp
        case .metadata(let document): document.timestamp
        case .raw(let unit): unit.timestamp
        }
    }

    /// The track's RTP clock rate.
    public var clockRate: Int {
        switch self {
        case .video: Depacketizer.videoClockRate
        case .audio(let frame): frame.clockRate
        case .metadata(let document): document.clockRate
        case .raw(let unit): unit.clockRate
        }
    }

    /// The SSRC of the source whose packets it was made from: whose sender reports date it.
    public var ssrc: UInt32 {
        switch self {
        case .video(let unit): unit.ssrc
        case .audio(let frame): frame.ssrc
        case .metadata(let document): document.ssrc
        case .raw(let unit): unit.ssrc
        }
    }

    /// When the sender captured it, on its wall clock (nil until its sender's first report).
    public var captureTime: WallClockTime? {
        switch self {
        case .video(let unit): unit.captureTime
        case .audio(let frame): frame.captureTime
        case .metadata(let document): document.captureTime
        case .raw(let unit): unit.captureTime
        }
    }

    /// Whether it is its track's first after a break (a reconnect, a new source): its timestamp does not
    /// follow the previous unit's.
    public var isDiscontinuity: Bool {
        switch self {
        case .video(let unit): unit.isDiscontinuity
        case .audio(let frame): frame.isDiscontinuity
        case .metadata(let document): document.isDiscontinuity
        case .raw(let unit): unit.isDiscontinuity
        }
    }

    /// Whether its timestamp jumped from its track's previous unit's beyond the pipeline's bound, in an unbroken
    /// stream (``AccessUnit/isTimestampJump``).
    public var isTimestampJump: Bool {
        switch self {
        case .video(let unit): unit.isTimestampJump
        case .audio(let frame): frame.isTimestampJump
        case .metadata(let document): document.isTimestampJump
        case .raw(let unit): unit.isTimestampJump
        }
    }

    /// Marks it as a timestamp jump.
    mutating func markTimestampJump() {
        switch self {
        case .video(var unit):
            unit.isTimestampJump = true
            self = .video(unit)
        case .audio(var frame):
            frame.isTimestampJump = true
            self = .audio(frame)
        case .metadata(var document):
            document.isTimestampJump = true
            self = .metadata(document)
        case .raw(var unit):
            unit.isTimestampJump = true
            self = .raw(unit)
        }
    }

    /// RTP packets lost in it or since its track's previous unit (0: nothing is missing).
    public var lostPackets: Int {
        switch self {
        case .video(let unit): unit.lostPackets
        case .audio(let frame): frame.lostPacketsBefore
        case .metadata(let document): document.lostPacketsBefore
        case .raw(let unit): unit.lostPackets
        }
    }

    /// The access unit, when it is video.
    public var accessUnit: AccessUnit? {
        if case .video(let unit) = self { unit } else { nil }
    }

    /// The audio frame, when it is audio.
    public var audioFrame: AudioFrame? {
        if case .audio(let frame) = self { frame } else { nil }
    }

    /// The metadata document, when it is one.
    public var metadataDocument: MetadataDocument? {
        if case .metadata(let document) = self { document } else { nil }
    }

    /// The raw unit, when it is one.
    public var rawUnit: RawUnit? {
        if case .raw(let unit) = self { unit } else { nil }
    }

    /// Dates it by `clock` (unchanged without a clock, or before its first report).
    func captured(by clock: SenderClock) -> MediaUnit {
        switch self {
        case .video(let unit): .video(unit.captured(by: clock))
        case .audio(let frame): .audio(frame.captured(by: clock))
        case .metadata(let document): .metadata(document.captured(by: clock))
        case .raw(let unit): .raw(unit.captured(by: clock))
        }
    }
}

extension MediaUnit: CustomStringConvertible {
    /// The unit's own one line (``AccessUnit``, ``AudioFrame``, ``MetadataDocument``, ``RawUnit``).
    public var description: String {
        switch self {
        case .video(let unit): unit.description
        case .audio(let frame): frame.description
        case .metadata(let document): document.description
        case .raw(let unit): unit.description
        }
    }
}
