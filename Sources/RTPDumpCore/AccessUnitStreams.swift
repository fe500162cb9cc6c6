import H26x
import MediaPipeline
import PacketCapture
import RTP

/// The RTP streams of a capture (or a live session's datagrams) through the library's ``MediaPipeline``,
/// one track per stream: what `rtpdump nals`, `extract` and `decode` read.
///
/// The codec is the one given, or sniffed per stream from its first payloads (``MediaPipeline/addTrack(sniffing:)``).
public struct AccessUnitStreams: Sendable {
    public let codec: VideoCodec?
    public let configuration: DepacketizerConfiguration
    /// A depacketizer every stream starts from (from an SDP), instead of the codec and configuration.
    public let template: VideoDepacketizer?
    private var tracks: CaptureTracks
    private var pipeline: MediaPipeline
    /// Sender clocks from RTCP that does not come as datagrams (a live session reads its RTCP itself).
    private let senderClocks: (@Sendable (UInt32) -> SenderClock?)?

    public init(
        filter: StreamFilter = StreamFilter(), codec: VideoCodec? = nil,
        configuration: DepacketizerConfiguration = DepacketizerConfiguration(),
        reorder: ReorderBuffer.Configuration = .init(), template: VideoDepacketizer? = nil,
        senderClocks: (@Sendable (UInt32) -> SenderClock?)? = nil, followsFlows: Bool = false
    ) {
        self.senderClocks = senderClocks
        self.codec = template?.codec ?? codec
        self.configuration = configuration
        self.template = template
        self.tracks = CaptureTracks(filter: filter, followsFlows: followsFlows)
        self.pipeline = MediaPipeline(reorder: reorder)
    }

    /// Offers a datagram; `emit` receives the access units it completes, with their stream.
    public mutating func add(_ datagram: consuming UDPDatagram, emit: (StreamKey, AccessUnit) -> Void) {
        switch tracks.sort(datagram) {
        case .packet(let received, let isNew):
            if isNew { addTrack() }
            pipeline.push(consume received)
            handOn(emit: emit)
        case .senderReports(let reports):
            for report in reports { pipeline.receiveSenderReport(report) }
        case nil:
            return
        }
    }

    /// Ends every stream.
    public mutating func finish(emit: (StreamKey, AccessUnit) -> Void) {
        pipeline.finish()
        handOn(emit: emit)
    }

    /// The codec and depacketizer state of each stream, in order of appearance.
    public var depacketizers: [(StreamKey, VideoDepacketizer)] {
        (0..<pipeline.trackCount).compactMap { track in
            pipeline.depacketizer(track: track).map { (tracks.stream(track: track), $0) }
        }
    }

    /// The streams whose codec was sniffed and whose payload type is static (RFC 3551: PCMU, PCMA...): not
    /// video, left out.
    public var streamsNotVideo: [StreamKey] {
        (0..<pipeline.trackCount).filter { pipeline.isNotVideo(track: $0) }.map { tracks.stream(track: $0) }
    }

    /// The track (index in order of appearance) of `stream`, once it has been seen.
    public func track(of stream: StreamKey) -> Int? { tracks.track(of: stream) }

    /// The reorder buffer of `stream`, for its counters.
    public func reorderBuffer(for stream: StreamKey) -> ReorderBuffer? {
        tracks.track(of: stream).flatMap { pipeline.reorderBuffer(track: $0) }
    }

    private mutating func addTrack() {
        if let start = template ?? codec.map({ VideoDepacketizer(codec: $0, configuration: configuration) }) {
            _ = pipeline.addTrack(start)
        } else {
            _ = pipeline.addTrack(sniffing: configuration)
        }
    }

    /// Hands on what the pipeline completed; a live session's units are dated by the session's clocks.
    private mutating func handOn(emit: (StreamKey, AccessUnit) -> Void) {
        while var unit = pipeline.nextAccessUnit() {
            if unit.captureTime == nil, let senderClocks { unit = unit.captured(by: senderClocks(unit.ssrc)) }
            emit(tracks.stream(track: unit.track), unit)
        }
    }
}
