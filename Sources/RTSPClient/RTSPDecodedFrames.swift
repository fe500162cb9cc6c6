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

        public mutating func next() async throws -> I420Frame? {
            while true {
                if var frame = decoders.nextFrame() {
                    frame.captureTime = units.source.clock(track: frame.track)?.wallClock(rtpTimestamp: frame.timestamp)
                    return frame
                }
                if drained { return nil }
                guard let unit = try await units.next() else {
                    drained = true
                    try decoders.drain()
                    continue
                }
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
