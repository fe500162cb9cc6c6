import Audio
import AudioDecoding
import H26x
import MediaPipeline
import RTP
import SDP
import VideoDecoding

/// Video frames and PCM decoded from a sequence of media units (any source's): one video decoder per video
/// track, configured with the track's parameter sets from its format before its first unit, and one audio
/// decoder per audio track, each made when its track's first unit comes. Frames come in each track's
/// presentation order; video frames after a loss are flagged until the next keyframe; audio lost on the way
/// becomes silence of its duration (``PCMGapFiller``, flagged ``PCMFrame/followsLoss``), so that the PCM
/// keeps the stream's time. Metadata documents and raw units are handed on as they came. Iterate once.
///
/// ```swift
/// let decoded = try session.media().decoded(
///     video: { _, codec in try FFmpegVideoDecoder(codec: codec) },
///     audio: { _, format in try FFmpegAudioDecoder(format: format) })
/// for try await unit in decoded {
///     switch unit {
///     case .video(let frame): videoSink.push(frame)
///     case .audio(let pcm): chunker.push(pcm)
///     case .metadata(let document): events.handle(document.text)
///     case .raw: break
///     }
/// }
/// ```
///
/// `Sendable` when its units are: decoders are made by the iterator, in the task that iterates.
public struct DecodedMedia<Units: AsyncSequence, VideoDecoderType: VideoDecoder, AudioDecoderType: AudioDecoder>:
    AsyncSequence
where Units.Element == MediaUnit {
    public typealias Element = DecodedUnit

    let units: Units
    let formats: @Sendable (_ track: Int) -> MediaFormat?
    let makeVideo: @Sendable (_ track: Int, _ codec: VideoCodec) throws -> VideoDecoderType
    let makeAudio: @Sendable (_ track: Int, _ format: AudioFormat) throws -> AudioDecoderType

    /// `units` decoded: video by decoders `video` makes, PCM by decoders `audio` makes from the track's
    /// format, as `formats(track)` gives it (an audio track without one is not decoded).
    public init(
        units: Units, formats: @escaping @Sendable (_ track: Int) -> MediaFormat?,
        video: @escaping @Sendable (_ track: Int, _ codec: VideoCodec) throws -> VideoDecoderType,
        audio: @escaping @Sendable (_ track: Int, _ format: AudioFormat) throws -> AudioDecoderType
    ) {
        self.units = units
        self.formats = formats
        self.makeVideo = video
        self.makeAudio = audio
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var units: Units.AsyncIterator
        let formats: @Sendable (_ track: Int) -> MediaFormat?
        var video: TrackDecoders<VideoDecoderType>
        let makeAudio: @Sendable (_ track: Int, _ format: AudioFormat) throws -> AudioDecoderType
        var audio: [Int: AudioDecoderType] = [:]
        /// Each audio track's silence for what was lost: the PCM keeps the stream's time.
        var gaps: [Int: PCMGapFiller] = [:]
        /// PCM decoded and not yet taken.
        var pcm: [PCMFrame] = []
        /// A metadata document or raw unit to hand on.
        var passed: DecodedUnit?
        var drained = false
        var drainFailure: (any Error)?

        public mutating func next() async throws -> DecodedUnit? {
            while true {
                if let frame = video.nextFrame() { return .video(frame) }
                if !pcm.isEmpty { return .audio(pcm.removeFirst()) }
                if let unit = passed.take() { return unit }
                if drained {
                    // What draining found wrong comes after the frames it gave.
                    if let failure = drainFailure.take() { throw failure }
                    return nil
                }
                guard let unit = try await units.next() else {
                    drained = true
                    do { try video.drain() } catch { drainFailure = error }
                    for track in audio.keys.sorted() {
                        try audio[track]?.drain { pcm.append(Self.stamped($0, track: track, from: nil)) }
                    }
                    continue
                }
                switch unit {
                case .video(let accessUnit):
                    try video.decode(accessUnit)
                case .audio(let frame):
                    try decode(frame)
                case .metadata(let document):
                    passed = .metadata(document)
                case .raw(let unit):
                    passed = .raw(unit)
                }
            }
        }

        private mutating func decode(_ frame: AudioFrame) throws {
            let track = frame.track
            if audio[track] == nil {
                guard let format = formats(track)?.audioFormat else { return }
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
        let formats = self.formats
        return AsyncIterator(
            units: units.makeAsyncIterator(), formats: formats,
            video: TrackDecoders(makeDecoder: makeVideo) { track in
                formats(track)?.videoFormat.map { ParameterSets(format: $0) }
            },
            makeAudio: makeAudio)
    }
}

extension DecodedMedia: Sendable where Units: Sendable {}

extension AsyncSequence where Element == MediaUnit {
    /// These units decoded: video frames by decoders `video` makes from a track's index and codec, PCM by
    /// decoders `audio` makes from a track's index and format, each track's format as `formats` gives it.
    public func decoded<VideoDecoderType: VideoDecoder, AudioDecoderType: AudioDecoder>(
        formats: @escaping @Sendable (_ track: Int) -> MediaFormat?,
        video: @escaping @Sendable (_ track: Int, _ codec: VideoCodec) throws -> VideoDecoderType,
        audio: @escaping @Sendable (_ track: Int, _ format: AudioFormat) throws -> AudioDecoderType
    ) -> DecodedMedia<Self, VideoDecoderType, AudioDecoderType> {
        DecodedMedia(units: self, formats: formats, video: video, audio: audio)
    }
}

extension AsyncSequence where Element == MediaUnit, Self: DescribedTracks & Sendable {
    /// These units decoded: video frames by decoders `video` makes from a track's index and codec, PCM by
    /// decoders `audio` makes from a track's index and format (from the source's description).
    public func decoded<VideoDecoderType: VideoDecoder, AudioDecoderType: AudioDecoder>(
        video: @escaping @Sendable (_ track: Int, _ codec: VideoCodec) throws -> VideoDecoderType,
        audio: @escaping @Sendable (_ track: Int, _ format: AudioFormat) throws -> AudioDecoderType
    ) -> DecodedMedia<Self, VideoDecoderType, AudioDecoderType> {
        DecodedMedia(units: self, formats: { [self] in format(track: $0) }, video: video, audio: audio)
    }
}
