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
        let sequence: RTSPAccessUnits
        let makeDecoder: (_ track: Int, _ codec: VideoCodec) throws -> Decoder
        /// Each track's decoder, made when its first unit comes.
        var decoders: [Int: Decoder] = [:]
        /// Frames decoded and not yet returned, moved out one by one.
        var ready: [I420Frame] = []
        var drained = false

        public mutating func next() async throws -> I420Frame? {
            while true {
                if !ready.isEmpty {
                    var frame = ready.removeFirst()
                    frame.captureTime = units.source.clock(track: frame.track)?.wallClock(rtpTimestamp: frame.timestamp)
                    return frame
                }
                if drained { return nil }
                guard let unit = try await units.next() else {
                    drained = true
                    for track in decoders.keys.sorted() {
                        try decoders[track]?.drain { frame in ready.append(Self.stamped(frame, track: track)) }
                    }
                    continue
                }
                let track = unit.track
                if decoders[track] == nil {
                    var decoder = try makeDecoder(track, unit.codec)
                    if let sets = sequence.sdpParameterSets(track: track), !sets.isEmpty {
                        try decoder.configure(parameterSets: sets)
                    }
                    decoders[track] = decoder
                }
                try decoders[track]?.decode(unit) { frame in ready.append(Self.stamped(frame, track: track)) }
            }
        }

        private static func stamped(_ frame: I420Frame, track: Int) -> I420Frame {
            var frame = frame
            frame.track = track
            return frame
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(units: units.makeAsyncIterator(), sequence: units, makeDecoder: makeDecoder)
    }
}
