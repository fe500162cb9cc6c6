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
        var dating = VideoFrameDating()

        public mutating func next() async throws -> I420Frame? {
            while true {
                if var frame = decoders.nextFrame() {
                    dating.date(&frame, by: units.source)
                    return frame
                }
                if drained { return nil }
                guard let unit = try await units.next() else {
                    drained = true
                    try decoders.drain()
                    continue
                }
                dating.note(unit)
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

/// Dates decoded video frames by their track's sender clock. A frame comes out of the decoder after the
/// units it was decoded from, so the source whose clock dates it is that of the units decoded since the
/// track's last discontinuity: it becomes the frames' source with the first frame after it.
struct VideoFrameDating {
    var sources: [Int: UInt32] = [:]
    var nextSources: [Int: UInt32] = [:]

    /// A unit about to be decoded.
    mutating func note(_ unit: AccessUnit) {
        if unit.isDiscontinuity || nextSources[unit.track] == nil { nextSources[unit.track] = unit.ssrc }
    }

    /// Sets a decoded frame's capture time from its track's sender clock.
    mutating func date(_ frame: inout I420Frame, by packets: RTSPPackets.AsyncIterator) {
        if frame.isDiscontinuity || sources[frame.track] == nil { sources[frame.track] = nextSources[frame.track] }
        let clock = packets.clock(track: frame.track, ssrc: sources[frame.track])
        frame.captureTime = clock?.wallClock(rtpTimestamp: frame.timestamp)
    }
}
