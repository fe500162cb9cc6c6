import Audio
import H26x
import JPEG
import RTP
import SDP

/// A track's packetizer, whatever its payload: made from the format the track is announced with, it takes the
/// track's ``MediaUnit``s and gives their RTP payloads, each with its marker bit and media timestamp. The
/// inverse of ``Depacketizer``: what it makes, a `Depacketizer(format:)` of the same format takes apart into the
/// same units.
///
/// ```swift
/// var packetizer = try Packetizer(format: format)
/// var sender = RTPSender(payloadType: format.payloadType, clockRate: format.clockRate)
/// packetizer.packetize(unit) { payload, marker, timestamp in
///     sender.append(payload: payload, marker: marker, timestamp: timestamp, capturedAt: .now(), to: &packet)
/// }
/// ```
///
/// - H.264 and H.265: single NAL units, aggregation (STAP-A, AP) and fragmentation (FU-A, FU) by the payload
///   size, parameter sets in front of keyframes that come without them (``H26xPacketizer``).
/// - Motion JPEG (RFC 2435, ``JPEGPacketizer``): baseline 4:2:2 and 4:2:0 pictures, their tables in band.
/// - G.711, L16, G.722, G.726, AAC (`mpeg4-generic`) and Opus (``AudioPacketizer``).
///
/// Units of another kind than the format's (an audio frame given to a video packetizer) give no payload.
public struct Packetizer: Sendable {
    /// The format its payloads follow.
    public let format: MediaFormat
    private var video: H26xPacketizer?
    private var jpeg: JPEGPacketizer?
    private var audio: AudioPacketizer?

    /// A packetizer for `format`. Throws for a format it cannot send: metadata and data tracks, `MP4A-LATM`,
    /// H.264's interleaved mode.
    public init(format: MediaFormat, maxPayloadSize: Int = RTPSender.defaultMaxPayloadSize) throws(PacketizerError) {
        self.format = format
        switch format {
        case .video(let video) where video.codec.isH26x:
            guard video.packetizationMode != 2, video.maxDONDiff == 0 else {
                throw PacketizerError("interleaved H.264 and H.265 with decoding order numbers are not sent")
            }
            var sets = ParameterSets(codec: video.codec)
            for (name, value) in video.parameterSetAttributes { _ = sets.addValid(sdpParameter: name, value: value) }
            self.video = H26xPacketizer(codec: video.codec, maxPayloadSize: maxPayloadSize, parameterSets: sets)
        case .video:
            jpeg = JPEGPacketizer(maxPayloadSize: maxPayloadSize)
        case .audio(let audio):
            do throws(AudioError) {
                self.audio = try AudioPacketizer(format: audio, maxPayloadSize: maxPayloadSize)
            } catch {
                throw PacketizerError(error.reason)
            }
        case .data:
            throw PacketizerError("metadata and data tracks are not packetized")
        }
    }

    /// Calls `emit` with each RTP payload of `unit`, its marker bit and its media timestamp (the unit's, or a
    /// later one for a piece of a long audio frame), in order.
    public mutating func packetize<E: Error>(
        _ unit: MediaUnit,
        _ emit: (_ payload: ArraySlice<UInt8>, _ marker: Bool, _ timestamp: UInt64) throws(E) -> Void
    ) throws(E) {
        switch unit {
        case .video(let picture) where picture.codec == .jpeg:
            try jpeg?.packetize(picture) { (payload, isLast) throws(E) in try emit(payload, isLast, picture.timestamp) }
        case .video(let picture):
            guard video?.codec == picture.codec else { return }
            try video?.packetize(picture) { (payload, isLast) throws(E) in try emit(payload, isLast, picture.timestamp)
            }
        case .audio(let frame):
            guard audio?.format.codec == frame.codec else { return }
            try audio?.packetize(frame) { (payload, marker, offset) throws(E) in
                try emit(payload, marker, frame.timestamp &+ UInt64(offset))
            }
        case .metadata, .raw:
            return
        }
    }
}

/// A format a ``Packetizer`` cannot send, and why.
public struct PacketizerError: Error, Hashable, Sendable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

extension VideoFormat {
    /// An H.264 or H.265 format announcing `parameterSets` (its SPS's profile and level, for H.264), with
    /// packetization mode 1: what a server describes a stream of those sets with.
    public init(parameterSets: ParameterSets, payloadType: UInt8 = 96) {
        self.init(
            codec: parameterSets.codec, payloadType: payloadType,
            packetizationMode: parameterSets.codec == .h264 ? 1 : 0, profileLevelID: parameterSets.profileLevelID,
            parameterSetAttributes: parameterSets.sdpParameters)
    }
}
