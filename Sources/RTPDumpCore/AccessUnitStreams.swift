import H26x
import PacketCapture
import RTP

/// Runs the RTP streams of a capture through a reorder buffer and an H.264 or H.265 depacketizer each:
/// what `rtpdump nals` and `rtpdump extract` read.
///
/// The codec is the one given, or sniffed per stream from its first payloads (``CodecSniffer``); until a
/// payload decides, up to ``maxUndecidedPackets`` packets are held, and then H.264 is assumed.
public struct AccessUnitStreams: Sendable {
    public static let maxUndecidedPackets = 64

    struct Stream: Sendable {
        var depacketizer: VideoDepacketizer?
        var undecided: [ReorderBuffer.Output] = []
        /// The SSRC whose sender clock dates its units: the stream's, or the last one released when a flow
        /// changes SSRC (a new source has its own timestamps and its own sender reports).
        var ssrc: UInt32
    }

    public let codec: VideoCodec?
    public let configuration: DepacketizerConfiguration
    /// A depacketizer every stream starts from (from an SDP), instead of the codec and configuration.
    public let template: VideoDepacketizer?
    private var ordered: OrderedPackets
    /// Each stream's depacketizer, at its position in `ordered`.
    private var streams: [Stream] = []
    /// Each sender's clock, from its RTCP sender reports (H.264 and H.265 use a 90 kHz RTP clock).
    private var clocks: [UInt32: SenderClock] = [:]
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
        self.ordered = OrderedPackets(filter: filter, configuration: reorder, followsFlows: followsFlows)
    }

    /// Offers a datagram; `emit` receives the access units it completes, with their stream.
    public mutating func add(_ datagram: consuming UDPDatagram, emit: (StreamKey, AccessUnit) -> Void) {
        if RTPPacket.looksLikeRTCP(datagram.payload) {
            guard let packets = try? RTCPPacket.parseCompound(datagram.payload) else { return }
            for case .senderReport(let report) in packets {
                clocks[report.ssrc, default: SenderClock(clockRate: 90_000)].update(with: report)
            }
            return
        }
        let time = datagram.time
        guard let (position, stream) = ordered.insert(datagram) else { return }
        while let output = ordered.next(at: position, now: time) {
            handle(position, stream, output, emit: emit)
        }
    }

    /// Ends every stream.
    public mutating func finish(emit: (StreamKey, AccessUnit) -> Void) {
        for position in 0..<ordered.streamCount {
            let stream = ordered.stream(at: position)
            while let output = ordered.flush(at: position) { handle(position, stream, output, emit: emit) }
        }
        for position in streams.indices {
            let key = ordered.stream(at: position)
            if streams[position].depacketizer == nil { decide(position, codec: .h264, emit: emit) }
            streams[position].depacketizer?.flush()
            handOn(position, key, emit: emit)
        }
    }

    /// The codec and depacketizer state of each stream, in order of appearance.
    public var depacketizers: [(StreamKey, VideoDepacketizer)] {
        streams.indices.compactMap { i in streams[i].depacketizer.map { (ordered.stream(at: i), $0) } }
    }

    // The outputs are consumed on their way to the depacketizer: moved, not copied.
    private mutating func handle(
        _ position: Int, _ stream: StreamKey, _ output: consuming ReorderBuffer.Output,
        emit: (StreamKey, AccessUnit) -> Void
    ) {
        while streams.count <= position {  // a stream's first output: positions are handed out in order
            streams.append(
                Stream(
                    depacketizer: template ?? codec.map { VideoDepacketizer(codec: $0, configuration: configuration) },
                    ssrc: ordered.stream(at: streams.count).ssrc))
        }
        guard streams[position].depacketizer != nil else {
            var sniffed: VideoCodec?
            if case .packet(let packet, _) = output { sniffed = CodecSniffer.codec(ofPayload: packet.payload) }
            streams[position].undecided.append(output)
            if let sniffed {
                decide(position, codec: sniffed, emit: emit)
            } else if streams[position].undecided.count >= Self.maxUndecidedPackets {
                decide(position, codec: .h264, emit: emit)
            }
            return
        }
        feed(position, stream, output, emit: emit)
    }

    private mutating func decide(_ position: Int, codec: VideoCodec, emit: (StreamKey, AccessUnit) -> Void) {
        streams[position].depacketizer = VideoDepacketizer(codec: codec, configuration: configuration)
        let held = streams[position].undecided
        streams[position].undecided = []
        let key = ordered.stream(at: position)
        for output in held { feed(position, key, output, emit: emit) }
    }

    private mutating func feed(
        _ position: Int, _ key: StreamKey, _ output: consuming ReorderBuffer.Output,
        emit: (StreamKey, AccessUnit) -> Void
    ) {
        if ordered.followsFlows, case .packet(let packet, _) = output { streams[position].ssrc = packet.ssrc }
        streams[position].depacketizer?.consume(output)
        handOn(position, key, emit: emit)
    }

    /// Hands on what the stream's depacketizer completed, dated by its source's sender clock.
    private mutating func handOn(_ position: Int, _ key: StreamKey, emit: (StreamKey, AccessUnit) -> Void) {
        while let unit = streams[position].depacketizer?.nextAccessUnit() {
            let ssrc = streams[position].ssrc
            emit(key, unit.captured(by: clocks[ssrc] ?? senderClocks?(ssrc)))
        }
    }
}
