import Audio
import MediaPipeline
import PacketCapture
import RTP
import SDP

/// The audio streams of a capture (or a live session's datagrams) through the library's ``MediaPipeline``:
/// every stream the filter admits (narrowed to the format's payload type) is a track taken apart as
/// `format` says. What `rtpdump frames` and the audio side of `extract` read.
public struct AudioFrameStreams: Sendable {
    public let format: AudioFormat
    private var tracks: CaptureTracks
    private var pipeline: MediaPipeline
    /// Sender clocks from RTCP that does not come as datagrams (a live session reads its RTCP itself).
    private let senderClocks: (@Sendable (UInt32) -> SenderClock?)?

    /// - Throws: ``AudioError`` when the format's configuration cannot be read.
    public init(
        format: AudioFormat, filter: StreamFilter = StreamFilter(), reorder: ReorderBuffer.Configuration = .audio,
        senderClocks: (@Sendable (UInt32) -> SenderClock?)? = nil, followsFlows: Bool = false
    ) throws(AudioError) {
        self.format = format
        _ = try AudioDepacketizer(format: format)  // refused here, with its reason, rather than per stream
        var narrowed = filter
        narrowed.payloadType = narrowed.payloadType ?? format.payloadType
        tracks = CaptureTracks(filter: narrowed, followsFlows: followsFlows)
        pipeline = MediaPipeline(reorder: reorder)
        self.senderClocks = senderClocks
    }

    /// Offers a datagram; `emit` receives the frames it completes, with their stream.
    public mutating func add(_ datagram: consuming UDPDatagram, emit: (StreamKey, AudioFrame) -> Void) {
        switch tracks.sort(datagram) {
        case .packet(let received, let isNew):
            if isNew, let depacketizer = try? AudioDepacketizer(format: format) {
                _ = pipeline.addTrack(audio: depacketizer)
            }
            pipeline.push(consume received)
            handOn(emit: emit)
        case .senderReports(let reports):
            for report in reports { pipeline.receiveSenderReport(report) }
        case nil:
            return
        }
    }

    /// Ends every stream.
    public mutating func finish(emit: (StreamKey, AudioFrame) -> Void) {
        pipeline.finish()
        handOn(emit: emit)
    }

    /// The depacketizer of each stream, in order of appearance (its counters, its configuration).
    public var depacketizers: [(StreamKey, AudioDepacketizer)] {
        (0..<pipeline.trackCount).compactMap { track in
            pipeline.audioDepacketizer(track: track).map { (tracks.stream(track: track), $0) }
        }
    }

    private mutating func handOn(emit: (StreamKey, AudioFrame) -> Void) {
        while var frame = pipeline.nextAudioFrame() {
            if frame.captureTime == nil, let senderClocks { frame = frame.captured(by: senderClocks(frame.ssrc)) }
            emit(tracks.stream(track: frame.track), frame)
        }
    }
}
