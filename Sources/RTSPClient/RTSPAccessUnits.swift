import H26x
import Logging
import MediaPipeline
import RTP
import RTSP
import SDP
import VideoDecoding

/// The access units of a session's tracks, in the order they complete: their packets through the
/// library's ``MediaPipeline`` (a reorder buffer per track, the depacketizer its SDP format calls for, with
/// its parameter sets). Each unit names its track (``AccessUnit/track``, an index into
/// ``RTSPSession/tracks``) and carries its capture time once the track's sender has reported. Loss is
/// reported in each unit's ``AccessUnit/lostPackets``; nothing is spliced. Iterate once.
public struct RTSPAccessUnits: AsyncSequence, Sendable {
    public typealias Element = AccessUnit

    let packets: RTSPPackets
    /// The tracks played, by index into the session's tracks; packets of the others are skipped.
    let selected: Set<Int>
    /// Every track's format (those not selected too, so that indexes are the session's).
    let formats: [VideoFormat]
    let reorder: ReorderBuffer.Configuration
    let logger: Logger

    public struct AsyncIterator: AsyncIteratorProtocol {
        var source: RTSPPackets.AsyncIterator
        let selected: Set<Int>
        var pipeline: MediaPipeline
        var finished = false

        public mutating func next() async throws -> AccessUnit? {
            while true {
                if let unit = pipeline.nextAccessUnit() {
                    return unit.captured(by: source.clock(track: unit.track, ssrc: unit.ssrc))
                }
                if finished { return nil }
                guard let received = try await source.next() else {
                    finished = true
                    pipeline.finish()
                    continue
                }
                guard selected.contains(received.track) else { continue }
                pipeline.push(received)
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            source: packets.makeAsyncIterator(), selected: selected,
            pipeline: MediaPipeline(formats: formats, reorder: reorder, logger: logger))
    }

    /// The parameter sets of `track` from its SDP (what its decoder is configured with before the first unit).
    func sdpParameterSets(track: Int) -> ParameterSets? {
        formats.indices.contains(track) ? SDPVideo.parameterSets(of: formats[track]) : nil
    }

    /// The tracks these units come from, in order.
    public var tracks: [Int] { selected.sorted() }

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
    /// The access units of the tracks at `indices` into ``tracks`` (nil: every track set up), in the order
    /// they complete, each naming its track. Parameter sets in a track's SDP that are not valid are left out;
    /// the stream's in-band sets serve instead.
    ///
    /// - Throws: ``RTSPClientError`` `.invalidCall` when an index is not that of a track set up.
    public func accessUnits(tracks indices: [Int]? = nil, reorder: ReorderBuffer.Configuration = .init()) throws
        -> RTSPAccessUnits
    {
        let logger = driver.options.logger
        let chosen = indices ?? Array(tracks.indices)
        let missing = chosen.filter { !tracks.indices.contains($0) }
        guard !chosen.isEmpty, missing.isEmpty else {
            let which =
                chosen.isEmpty
                ? "accessUnits(tracks: []) names no track"
                : missing.count == 1
                    ? "track \(missing[0]) was not set up" : "tracks \(missing) were not set up"
            throw RTSPClientError(.invalidCall, "\(which): the session has tracks 0 to \(tracks.count - 1)")
        }
        return RTSPAccessUnits(
            packets: packets, selected: Set(chosen),
            formats: tracks.map(\.format), reorder: reorder, logger: logger)
    }

    /// The access units of one track.
    ///
    /// - Throws: ``RTSPClientError`` `.invalidCall` when `track` is not the index of a track set up.
    public func accessUnits(track: Int, reorder: ReorderBuffer.Configuration = .init()) throws -> RTSPAccessUnits {
        try accessUnits(tracks: [track], reorder: reorder)
    }
}
