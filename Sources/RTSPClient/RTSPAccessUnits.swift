import H26x
import MediaPipeline
import RTP
@_spi(SansIO) import RTSP
import SDP

/// The access units of a session's video tracks, in the order they complete: their packets through the
/// library's ``MediaPipeline`` (a reorder buffer per track, the depacketizer its SDP format calls for, with
/// its parameter sets). Each unit names its track (``AccessUnit/track``, an index into
/// ``RTSPSession/tracks``) and carries its capture time once the track's sender has reported. Loss is
/// reported in each unit's ``AccessUnit/lostPackets``; nothing is spliced. Iterate once.
public struct RTSPAccessUnits: AsyncSequence, Sendable, DescribedTracks, CountedUnits {
    public typealias Element = AccessUnit

    /// The session's media, of the video tracks chosen.
    let media: RTSPMediaUnits

    /// Where a decoder of these units counts its pictures and failures: the session's metrics, when it has them.
    package var counting: UnitCounting? { media.metrics?.counting }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var media: RTSPMediaUnits.AsyncIterator

        public mutating func next() async throws -> AccessUnit? {
            while let unit = try await media.next() {
                if case .video(let accessUnit) = unit { return accessUnit }
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(media: media.makeAsyncIterator()) }

    /// The tracks these units come from, in order.
    public var tracks: [Int] { media.tracks }

    /// The format of `track` (an index into ``RTSPSession/tracks``), from the session's SDP: what a
    /// decoder is configured with before the track's first unit (`frames(makeDecoder:)`).
    public func format(track: Int) -> MediaFormat? { media.format(track: track) }
}

extension RTSPSession {
    /// The access units of the video tracks at `indices` into ``tracks`` (nil: every video track set up), in
    /// the order they complete, each naming its track. Parameter sets in a track's SDP that are not valid are
    /// left out; the stream's in-band sets serve instead. For audio too, iterate
    /// ``media(tracks:reorder:audioReorder:)``: a session's packets have one consumer.
    ///
    /// - Throws: ``RTSPClientError`` `.invalidCall` when an index is not that of a video track set up, or when
    ///   another sequence of the session's packets was made before (they are read once: use `media()`).
    public func accessUnits(tracks indices: [Int]? = nil, reorder: ReorderBuffer.Configuration = .init()) throws
        -> RTSPAccessUnits
    {
        let chosen = indices ?? tracks.indices.filter { tracks[$0].format.kind == .video }
        try checkTracks(chosen, given: indices != nil, call: "accessUnits", kind: .video)
        try packets.claim.take(for: "accessUnits()")
        return RTSPAccessUnits(
            media: RTSPMediaUnits(
                packets: packets, selected: Set(chosen), formats: tracks.map(\.format), reorder: reorder,
                audioReorder: .audio, logger: driver.options.logger, owner: "accessUnits()",
                metrics: unitMetrics, events: unitEvents))
    }

    /// The access units of one video track.
    ///
    /// - Throws: ``RTSPClientError`` `.invalidCall` when `track` is not the index of a video track set up.
    public func accessUnits(track: Int, reorder: ReorderBuffer.Configuration = .init()) throws -> RTSPAccessUnits {
        try accessUnits(tracks: [track], reorder: reorder)
    }
}
