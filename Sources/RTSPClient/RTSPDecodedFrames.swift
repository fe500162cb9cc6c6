import H26x
import RTP
import VideoDecoding

/// Frames decoded from an ``RTSPAccessUnits`` sequence, one decoder per track, in each track's presentation
/// order. Each frame names its track and carries its capture time once the track's sender has reported.
/// Iterate once.
public struct RTSPDecodedFrames<Decoder: VideoDecoder>: AsyncSequence {
    public typealias Element = I420Frame

    let units: RTSPAccessUnits
    let makeDecoder: (_ track: Int, _ codec: VideoCodec) throws -> Decoder

    public struct AsyncIterator: AsyncIteratorProtocol {
        var units: RTSPAccessUnits.AsyncIterator
        var decoders: TrackDecoders<Decoder>
        var drained = false
        /// Each track's source, whose clock dates its frames, and the source of the units decoded since the
        /// track's last discontinuity (it becomes the frames' source with the first frame after it).
        var sources: [Int: UInt32] = [:]
        var nextSources: [Int: UInt32] = [:]

        public mutating func next() async throws -> I420Frame? {
            while true {
                if var frame = decoders.nextFrame() {
                    if frame.isDiscontinuity || sources[frame.track] == nil { sources[frame.track] = nextSources[frame.track] }
                    let clock = units.source.clock(track: frame.track, ssrc: sources[frame.track])
                    frame.captureTime = clock?.wallClock(rtpTimestamp: frame.timestamp)
                    return frame
                }
                if drained { return nil }
                guard let unit = try await units.next() else {
                    drained = true
                    try decoders.drain()
                    continue
                }
                if unit.isDiscontinuity || nextSources[unit.track] == nil { nextSources[unit.track] = unit.ssrc }
                try decoders.decode(unit)
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let units = self.units
        return AsyncIterator(
            units: units.makeAsyncIterator(),
            decoders: TrackDecoders(makeDecoder: makeDecoder) { units.sdpParameterSets(track: $0) })
    }
}
