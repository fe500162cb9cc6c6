import Audio
import AudioDecoding
import H26x
import MediaPipeline
import RTP
import SDP
import VideoDecoding

/// A decoded unit of a session's media: a video frame or a block of PCM, each naming its track and dated
/// on its sender's wall clock once the track's sender has reported.
public enum RTSPDecodedUnit: Sendable {
    case video(I420Frame)
    case audio(PCMFrame)

    /// The track it belongs to, by index into ``RTSPSession/tracks``.
    public var track: Int {
        switch self {
        case .video(let frame): frame.track
        case .audio(let pcm): pcm.track
        }
    }

    /// When the sender captured it, on its wall clock (nil until the track's first sender report).
    public var captureTime: WallClockTime? {
        switch self {
        case .video(let frame): frame.captureTime
        case .audio(let pcm): pcm.captureTime
        }
    }
}

/// Video frames and PCM decoded from an ``RTSPMediaUnits`` sequence: one video decoder per video track, given
/// the track's parameter sets from the SDP before its first unit (as ``RTSPDecodedFrames``), and one audio
/// decoder per audio track, each made when its track's first unit comes. Frames come in each track's
/// presentation order; video frames after a loss are flagged until the next keyframe; audio lost on the way
/// becomes silence of its duration (``PCMGapFiller``, flagged ``PCMFrame/followsLoss``), so that the PCM
/// keeps the stream's time. Iterate once.
///
/// ```swift
/// let decoded = try session.media().decoded(
///     video: { _, codec in try FFmpegVideoDecoder(codec: codec) },
///     audio: { _, format in try FFmpegAudioDecoder(format: format) })
/// for try await unit in decoded {
///     switch unit {
///     case .video(let frame): videoSink.push(frame)
///     case .audio(let pcm): chunker.push(pcm)
///     }
/// }
/// ```
public struct RTSPDecodedMedia<VideoDecoderType: VideoDecoder, AudioDecoderType: AudioDecoder>: AsyncSequence {
    public typealias Element = RTSPDecodedUnit

    let media: RTSPMediaUnits
    let makeVideo: (_ track: Int, _ codec: VideoCodec) throws -> VideoDecoderType
    let makeAudio: (_ track: Int, _ format: AudioFormat) throws -> AudioDecoderType

    public struct AsyncIterator: AsyncIteratorProtocol {
        var media: RTSPMediaUnits.AsyncIterator
        let formats: [MediaFormat]
        var video: TrackDecoders<VideoDecoderType>
        let makeAudio: (_ track: Int, _ format: AudioFormat) throws -> AudioDecoderType
        var audio: [Int: AudioDecoderType] = [:]
        /// Each audio track's silence for what was lost: the PCM keeps the stream's time.
        var gaps: [Int: PCMGapFiller] = [:]
        /// PCM decoded and not yet taken.
        var pcm: [PCMFrame] = []
        var dating = VideoFrameDating()
        var drained = false

        public mutating func next() async throws -> RTSPDecodedUnit? {
            while true {
                if var frame = video.nextFrame() {
                    dating.date(&frame, by: media.source)
                    return .video(frame)
                }
                if !pcm.isEmpty { return .audio(pcm.removeFirst()) }
                if drained { return nil }
                guard let unit = try await media.next() else {
                    drained = true
                    try video.drain()
                    for track in audio.keys.sorted() {
                        try audio[track]?.drain { pcm.append(Self.stamped($0, track: track, from: nil)) }
                    }
                    continue
                }
                switch unit {
                case .video(let accessUnit):
                    dating.note(accessUnit)
                    try video.decode(accessUnit)
                case .audio(let frame):
                    try decode(frame)
                }
            }
        }

        private mutating func decode(_ frame: AudioFrame) throws {
            let track = frame.track
            if audio[track] == nil {
                guard let format = formats.indices.contains(track) ? formats[track].audioFormat : nil else { return }
                audio[track] = try makeAudio(track, format)
            }
            try audio[track]?.decode(frame) { decoded in
                let stamped = Self.stamped(decoded, track: track, from: frame)
                if let silence = gaps[track, default: PCMGapFiller()].silence(before: stamped) { pcm.append(silence) }
                pcm.append(stamped)
            }
        }

        /// The PCM with its track, and its capture time from the coded frame's when its decoder left it out.
        static func stamped(_ decoded: PCMFrame, track: Int, from frame: AudioFrame?) -> PCMFrame {
            var pcm = decoded
            pcm.track = track
            if pcm.captureTime == nil, let frame, let time = frame.captureTime {
                let ticks = Int64(bitPattern: pcm.timestamp &- frame.timestamp)
                pcm.captureTime = time.adding(seconds: Double(ticks) / Double(Swift.max(1, frame.clockRate)))
            }
            return pcm
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let formats = media.formats
        return AsyncIterator(
            media: media.makeAsyncIterator(), formats: formats,
            video: TrackDecoders(makeDecoder: makeVideo) { track in
                formats.indices.contains(track) ? formats[track].videoFormat.map { SDPVideo.parameterSets(of: $0) } : nil
            },
            makeAudio: makeAudio)
    }
}

extension RTSPMediaUnits {
    /// These units decoded: video frames by decoders `video` makes from a track's index and codec, PCM by
    /// decoders `audio` makes from a track's index and SDP format.
    public func decoded<VideoDecoderType: VideoDecoder, AudioDecoderType: AudioDecoder>(
        video: @escaping (_ track: Int, _ codec: VideoCodec) throws -> VideoDecoderType,
        audio: @escaping (_ track: Int, _ format: AudioFormat) throws -> AudioDecoderType
    ) -> RTSPDecodedMedia<VideoDecoderType, AudioDecoderType> {
        RTSPDecodedMedia(media: self, makeVideo: video, makeAudio: audio)
    }
}
