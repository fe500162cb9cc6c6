import H26x
import MediaPipeline
import PacketCapture
import RTP

/// The RTP streams of a capture (or a live session's datagrams) through the library's ``MediaPipeline``,
/// one track per stream: what `rtpdump nals`, `extract` and `decode` read.
///
/// The codec is the one given, or sniffed per stream from its first payloads (`Depacketizer.sniffing()`).
package struct AccessUnitStreams: Sendable {
    package let codec: VideoCodec?
    package let configuration: DepacketizerConfiguration
    /// A depacketizer every stream starts from (from an SDP), instead of the codec and configuration.
    package let template: Depacketizer?
    private var tracks: CaptureTracks
    private var pipeline: MediaPipeline
    /// Access units handed on, per track.
    private var handedOn: [Int] = []

    package init(
        filter: StreamFilter = StreamFilter(), codec: VideoCodec? = nil,
        configuration: DepacketizerConfiguration = DepacketizerConfiguration(),
        reorder: ReorderBuffer.Configuration = .init(), template: Depacketizer? = nil, followsFlows: Bool = false
    ) {
        self.codec = template?.videoCodec ?? codec
        self.configuration = configuration
        self.template = template
        self.tracks = CaptureTracks(filter: filter, followsFlows: followsFlows)
        self.pipeline = MediaPipeline(reorder: reorder)
    }

    /// Offers a datagram of a capture; `emit` receives the access units it completes, with their stream.
    package mutating func add(_ datagram: consuming UDPDatagram, emit: (StreamKey, AccessUnit) -> Void) {
        add(ReceivedItem(datagram), emit: emit)
    }

    /// Offers a received item; `emit` receives the access units it completes, with their stream.
    package mutating func add(_ item: consuming ReceivedItem, emit: (StreamKey, AccessUnit) -> Void) {
        switch tracks.sort(consume item) {
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
    package mutating func finish(emit: (StreamKey, AccessUnit) -> Void) {
        pipeline.finish()
        handOn(emit: emit)
    }

    /// The depacketizer of each stream whose codec is known, in order of appearance (its codec, parameter
    /// sets and counters).
    package var depacketizers: [(StreamKey, Depacketizer)] {
        (0..<pipeline.trackCount).compactMap { track in
            pipeline.depacketizer(track: track).flatMap {
                $0.videoCodec == nil ? nil : (tracks.stream(track: track), $0)
            }
        }
    }

    /// The streams whose codec was sniffed and found not to be video (a static payload type, RFC 3551:
    /// PCMU, PCMA...), or never told: left out, each with the reason.
    package var streamsNotVideo: [(stream: StreamKey, reason: String)] {
        (0..<pipeline.trackCount).compactMap { track in
            guard case .unplayable(let reason) = pipeline.depacketizer(track: track)?.payload else { return nil }
            return (tracks.stream(track: track), reason)
        }
    }

    /// The video streams of a known codec none of whose pictures came out, each with the depacketizer's reason
    /// (a JPEG type or precision refused, payloads that do not read).
    package var streamsRefused: [(stream: StreamKey, reason: String)] {
        (0..<pipeline.trackCount).compactMap { track in
            guard handedOn[track] == 0, let depacketizer = pipeline.depacketizer(track: track),
                let codec = depacketizer.videoCodec, let error = depacketizer.lastError
            else { return nil }
            return (tracks.stream(track: track), "no \(codec) picture came out of it: \(error)")
        }
    }

    /// The track (index in order of appearance) of `stream`, once it has been seen.
    package func track(of stream: StreamKey) -> Int? { tracks.track(of: stream) }

    /// The reorder buffer of `stream`, for its counters.
    package func reorderBuffer(for stream: StreamKey) -> ReorderBuffer? {
        tracks.track(of: stream).flatMap { pipeline.reorderBuffer(track: $0) }
    }

    private mutating func addTrack() {
        let start = template ?? codec.map { Depacketizer(codec: $0, configuration: configuration) }
        _ = pipeline.addTrack(start ?? .sniffing(configuration: configuration))
        handedOn.append(0)
    }

    /// Hands on what the pipeline completed.
    private mutating func handOn(emit: (StreamKey, AccessUnit) -> Void) {
        while let unit = pipeline.next() {
            guard case .video(let accessUnit) = unit else { continue }
            if handedOn.indices.contains(accessUnit.track) { handedOn[accessUnit.track] += 1 }
            emit(tracks.stream(track: accessUnit.track), accessUnit)
        }
    }
}
