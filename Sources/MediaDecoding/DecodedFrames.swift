import H26x
import MediaPipeline
import RTP
import SDP
import VideoDecoding

/// Frames decoded from a sequence of access units (any source's: an RTSP session's, a capture's), one
/// decoder per track, made by a factory when the track's first unit comes and configured with the track's
/// parameter sets from its format before it (many cameras send them nowhere else). Each frame names its
/// track, comes in its track's presentation order, and carries its capture time when its units did; frames
/// after a loss are flagged until the next keyframe. Iterate once.
///
/// `Sendable` when its units are: decoders are made by the iterator, in the task that iterates.
public struct DecodedFrames<Units: AsyncSequence, Decoder: VideoDecoder>: AsyncSequence
where Units.Element == AccessUnit {
    public typealias Element = I420Frame

    let units: Units
    let parameterSets: @Sendable (_ track: Int) -> ParameterSets?
    let makeDecoder: @Sendable (_ track: Int, _ codec: VideoCodec) throws -> Decoder
    /// Where its frames and failures are counted: its units' source's, when that counts them.
    let counting: UnitCounting?

    /// Frames of `units`, decoded by decoders `makeDecoder` makes from a track's index and codec, each
    /// configured first with `parameterSets(track)` (nil or empty: the stream's in-band sets serve).
    public init(
        units: Units, parameterSets: @escaping @Sendable (_ track: Int) -> ParameterSets? = { _ in nil },
        makeDecoder: @escaping @Sendable (_ track: Int, _ codec: VideoCodec) throws -> Decoder
    ) {
        self.units = units
        self.parameterSets = parameterSets
        self.makeDecoder = makeDecoder
        counting = (units as? any CountedUnits)?.counting
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var units: Units.AsyncIterator
        var decoders: TrackDecoders<Decoder>
        var drained = false
        var drainFailure: (any Error)?
        var metrics: DecoderMetrics.Tracks?

        public mutating func next() async throws -> I420Frame? {
            while true {
                if let frame = decoders.nextFrame() {
                    metrics?.count(frame)
                    return frame
                }
                if drained {
                    // What draining found wrong comes after the frames it gave.
                    if let failure = drainFailure.take() { throw failure }
                    return nil
                }
                guard let unit = try await units.next() else {
                    drained = true
                    do { try decoders.drain() } catch { drainFailure = error }
                    continue
                }
                do {
                    try decoders.decode(unit)
                } catch {
                    metrics?.countError(track: unit.track)
                    throw error
                }
            }
        }

        /// The decoder of `track`, once its first unit has come (for its counters).
        public func decoder(track: Int) -> Decoder? { decoders.decoder(track: track) }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            units: units.makeAsyncIterator(),
            decoders: TrackDecoders(makeDecoder: makeDecoder, parameterSets: parameterSets),
            metrics: counting.map(DecoderMetrics.Tracks.init))
    }
}

extension DecodedFrames: Sendable where Units: Sendable {}

extension AsyncSequence where Element == AccessUnit {
    /// These units decoded with one decoder per track, made by `makeDecoder` from the track's index and
    /// codec when its first unit comes, and configured first with `parameterSets(track)`.
    public func decoded<Decoder: VideoDecoder>(
        parameterSets: @escaping @Sendable (_ track: Int) -> ParameterSets? = { _ in nil },
        makeDecoder: @escaping @Sendable (_ track: Int, _ codec: VideoCodec) throws -> Decoder
    ) -> DecodedFrames<Self, Decoder> {
        DecodedFrames(units: self, parameterSets: parameterSets, makeDecoder: makeDecoder)
    }
}

extension AsyncSequence where Element == AccessUnit, Self: DescribedTracks & Sendable {
    /// Frames decoded from these units with one decoder per track, made by `makeDecoder` from the track's
    /// index and codec when its first unit comes, and given the track's parameter sets from its format
    /// before it. Each frame names its track (``I420Frame/track``) and comes in its track's presentation
    /// order; frames after a loss are flagged until the next keyframe.
    ///
    /// ```swift
    /// for try await frame in try session.accessUnits().frames { _, codec in try FFmpegVideoDecoder(codec: codec) } {
    ///     print(frame.track, frame.timestamp)
    /// }
    /// ```
    public func frames<Decoder: VideoDecoder>(
        makeDecoder: @escaping @Sendable (_ track: Int, _ codec: VideoCodec) throws -> Decoder
    ) -> DecodedFrames<Self, Decoder> {
        DecodedFrames(units: self, parameterSets: { [self] in sdpParameterSets(track: $0) }, makeDecoder: makeDecoder)
    }

    /// Frames decoded from these units through `decoder`: for units of one track. The decoder is given the
    /// track's parameter sets from its format before the first unit. A unit of a second track ends the
    /// iteration with `.invalidCall`: use ``frames(makeDecoder:)`` for several.
    public func frames<Decoder: VideoDecoder>(decoder: sending Decoder) -> DecodedFrames<Self, Decoder> {
        let handOff = DecoderHandOff(decoder)
        return frames { track, _ in
            guard let decoder = handOff.take() else {
                throw VideoDecodingError(
                    .invalidCall,
                    "frames(decoder:) decodes one track, and track \(track) is a second (or the sequence was "
                        + "iterated twice): use frames(makeDecoder:), or accessUnits(track:) for one track")
            }
            return decoder
        }
    }

    func sdpParameterSets(track: Int) -> ParameterSets? {
        format(track: track)?.videoFormat.map { ParameterSets(format: $0) }
    }
}
