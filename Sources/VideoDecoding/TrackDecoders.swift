import H26x
import RTP

/// One decoder per track: made when the track's first access unit comes, configured with the track's
/// parameter sets (from its SDP) before it decodes anything. Push units, then take the frames they
/// completed, each naming its track, in each track's presentation order, and dated on the sender's wall
/// clock from the units decoded before it (``I420Frame/captureTime``, once the units carry theirs):
///
/// ```swift
/// var decoders = TrackDecoders(makeDecoder: { _, codec in try FFmpegVideoDecoder(codec: codec) },
///                              parameterSets: { pipeline.depacketizer(track: $0)?.parameterSets })
/// try decoders.decode(unit)
/// while let frame = decoders.nextFrame() { sink.push(frame) }
/// // at the end:
/// try decoders.drain()
/// while let frame = decoders.nextFrame() { sink.push(frame) }
/// ```
package struct TrackDecoders<Decoder: VideoDecoder> {
    private let makeDecoder: (_ track: Int, _ codec: VideoCodec) throws -> Decoder
    private let parameterSets: (_ track: Int) -> ParameterSets?
    private var decoders: [Int: Decoder] = [:]
    /// Per track, the units decoded and the frames they gave.
    private var counts: [Int: (units: Int, frames: Int)] = [:]
    /// Frames decoded and not yet taken.
    private var ready: [I420Frame] = []
    /// What dates the frames: the capture times of the units decoded.
    private var dating = FrameDating()

    /// `makeDecoder` makes a track's decoder for its codec; `parameterSets` gives a track's sets from its
    /// SDP (nil or empty: none, the stream's in-band sets serve).
    package init(
        makeDecoder: @escaping (_ track: Int, _ codec: VideoCodec) throws -> Decoder,
        parameterSets: @escaping (_ track: Int) -> ParameterSets? = { _ in nil }
    ) {
        self.makeDecoder = makeDecoder
        self.parameterSets = parameterSets
    }

    /// Tracks whose next frame is the first after a discontinuity.
    private var discontinuities: Set<Int> = []

    /// Decodes `unit` with its track's decoder (made first, if this is the track's first unit). After a
    /// break (``AccessUnit/isDiscontinuity``) the decoder goes on as it is (a camera that changes its SSRC
    /// continues the same pictures; after a reconnect, a decoder flags what lacks its references) and the
    /// next frame it gives is flagged (``I420Frame/isDiscontinuity``).
    /// - Throws: what `makeDecoder`, the decoder's configuration or its `decode` throws: the decoder cannot
    ///   go on. Damaged input does not throw; its frames come out flagged.
    package mutating func decode(_ unit: AccessUnit) throws {
        let track = unit.track
        if decoders[track] == nil {
            var decoder = try makeDecoder(track, unit.codec)
            if let sets = parameterSets(track), !sets.isEmpty { try decoder.configure(parameterSets: sets) }
            decoders[track] = decoder
        } else if unit.isDiscontinuity {
            discontinuities.insert(track)
        }
        counts[track, default: (0, 0)].units += 1
        dating.note(unit)
        try decoders[track]?.decode(unit) { frame in
            var frame = Self.stamped(frame, track: track, dating: dating)
            if discontinuities.remove(track) != nil { frame.isDiscontinuity = true }
            counts[track, default: (0, 0)].frames += 1
            ready.append(frame)
        }
    }

    /// Ends every track: its decoder gives up the frames it still holds.
    /// - Throws: what a decoder's `drain` throws; and, with every frame held given up (take them with
    ///   ``nextFrame()`` before acting on the error), ``VideoDecodingError`` `.noFrames` when a track's units
    ///   all decoded to nothing (units in and no frame out is never quiet success: a stream that is not
    ///   what its format says, or lacks its parameter sets and keyframes).
    package mutating func drain() throws {
        for track in decoders.keys.sorted() {
            try decoders[track]?.drain { frame in
                counts[track, default: (0, 0)].frames += 1
                ready.append(Self.stamped(frame, track: track, dating: dating))
            }
        }
        if let (track, count) = counts.sorted(by: { $0.key < $1.key }).first(where: { $0.value.frames == 0 }) {
            throw VideoDecodingError(
                .noFrames,
                "track \(track): \(count.units) access unit(s) decoded to no frame: the stream may not be what its "
                    + "format says, or lack its parameter sets and keyframes")
        }
    }

    /// The oldest frame decoded and not yet taken; nil until the next decode or drain.
    package mutating func nextFrame() -> I420Frame? {
        ready.isEmpty ? nil : ready.removeFirst()
    }

    /// The decoder of `track`, once its first unit has come (for its counters).
    package func decoder(track: Int) -> Decoder? { decoders[track] }

    /// A frame the decoder of `track` gave, named and dated.
    private static func stamped(_ frame: I420Frame, track: Int, dating: FrameDating) -> I420Frame {
        var frame = frame
        frame.track = track
        dating.date(&frame)
        return frame
    }
}
