import H26x
import Logging
import MediaPipeline
import RTP
import RTSP
import SDP
import VideoDecoding

/// The access units of a session's video tracks, in the order they complete: their packets through the
/// library's ``MediaPipeline`` (a reorder buffer per track, the depacketizer its SDP format calls for, with
/// its parameter sets). Each unit names its track (``AccessUnit/track``, an index into
/// ``RTSPSession/tracks``) and carries its capture time once the track's sender has reported. Loss is
/// reported in each unit's ``AccessUnit/lostPackets``; nothing is spliced. Iterate once.
public struct RTSPAccessUnits: AsyncSequence, Sendable {
    public typealias Element = AccessUnit

    /// The session's media, of the video tracks chosen.
    let media: RTSPMediaUnits

    public struct AsyncIterator: AsyncIteratorProtocol {
        var media: RTSPMediaUnits.AsyncIterator
        /// The session's packets, whose sender clocks date units and frames.
        var source: RTSPPackets.AsyncIterator { media.source }

        public mutating func next() async throws -> AccessUnit? {
            while let unit = try await media.next() {
                if case .video(let accessUnit) = unit { return accessUnit }
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(media: media.makeAsyncIterator()) }

    /// The parameter sets of `track` from its SDP (what its decoder is configured with before the first unit).
    func sdpParameterSets(track: Int) -> ParameterSets? {
        media.formats.indices.contains(track) ? media.formats[track].videoFormat.map { SDPVideo.parameterSets(of: $0) } : nil
    }

    /// The tracks these units come from, in order.
    public var tracks: [Int] { media.tracks }

    /// Frames decoded from these units with one decoder per track, made by `makeDecoder` from the track's
    /// index and codec when its first unit comes, and given the track's parameter sets from the SDP before
    /// it (many cameras send them nowhere else). Each frame names its track (``I420Frame/track``) and comes
    /// in its track's presentation order; frames after a loss are flagged until the next keyframe.
    ///
    /// ```swift
    /// for try await frame in try session.accessUnits().frames { _, codec in try FFmpegVideoDecoder(codec: codec) } {
    ///     print(frame.track, frame.timestamp)
    /// }
    /// ```
    public func frames<Decoder: VideoDecoder>(
        makeDecoder: @escaping (_ track: Int, _ codec: VideoCodec) throws -> Decoder
    ) -> RTSPDecodedFrames<Decoder> {
        RTSPDecodedFrames(units: self, makeDecoder: makeDecoder)
    }

    /// Frames decoded from these units through `decoder`: for units of one track
    /// (``RTSPSession/accessUnits(track:reorder:)``). The decoder is given the track's parameter sets from
    /// the SDP before the first unit. A unit of a second track ends the iteration with `.invalidCall`: use
    /// ``frames(makeDecoder:)`` for several.
    public func frames<Decoder: VideoDecoder>(decoder: Decoder) -> RTSPDecodedFrames<Decoder> {
        var given: Decoder? = decoder
        return RTSPDecodedFrames(units: self) { track, _ in
            guard let decoder = given else {
                throw RTSPClientError(
                    .invalidCall,
                    "frames(decoder:) decodes one track, and track \(track) is a second: use frames(makeDecoder:), "
                        + "or accessUnits(track:) for one track")
            }
            given = nil
            return decoder
        }
    }
}

extension RTSPSession {
    /// The access units of the video tracks at `indices` into ``tracks`` (nil: every video track set up), in
    /// the order they complete, each naming its track. Parameter sets in a track's SDP that are not valid are
    /// left out; the stream's in-band sets serve instead. For audio too, iterate
    /// ``media(tracks:reorder:audioReorder:)``: a session's packets have one consumer.
    ///
    /// - Throws: ``RTSPClientError`` `.invalidCall` when an index is not that of a video track set up.
    public func accessUnits(tracks indices: [Int]? = nil, reorder: ReorderBuffer.Configuration = .init()) throws
        -> RTSPAccessUnits
    {
        let chosen = indices ?? tracks.indices.filter { tracks[$0].format.kind == .video }
        try checkTracks(chosen, given: indices != nil, call: "accessUnits", kind: .video)
        return RTSPAccessUnits(
            media: RTSPMediaUnits(
                packets: packets, selected: Set(chosen), formats: tracks.map(\.format), reorder: reorder,
                audioReorder: .audio, logger: driver.options.logger))
    }

    /// The access units of one video track.
    ///
    /// - Throws: ``RTSPClientError`` `.invalidCall` when `track` is not the index of a video track set up.
    public func accessUnits(track: Int, reorder: ReorderBuffer.Configuration = .init()) throws -> RTSPAccessUnits {
        try accessUnits(tracks: [track], reorder: reorder)
    }
}
