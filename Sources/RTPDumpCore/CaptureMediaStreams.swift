import MediaPipeline
import PacketCapture
import RTP
import SDP

/// Every video and audio stream of a capture (or a live session's datagrams) through the library's
/// ``MediaPipeline``, as media units of numbered tracks: what `rtpdump record` and `rtpdump serve` read.
///
/// A stream is taken as the SDP's format of its payload type says; without one, video is sniffed (and audio,
/// which cannot be, is not played). The SDP's audio tracks are made before their first packets (a consumer
/// that sets its tracks up at the start needs them there).
///
/// Streams are told apart by payload type first: a captured RTSP session over TCP carries every track in one
/// flow, which the SDP's payload types divide.
package struct CaptureMediaStreams: Sendable {
    /// What reading a datagram gives.
    package enum Event: Sendable {
        /// A track was made: its payload type, and its format when the SDP gives one (nil: sniffed video).
        case track(Int, payloadType: UInt8, format: MediaFormat?)
        /// A track's first packet came: the stream it is.
        case stream(Int, StreamKey)
        case unit(MediaUnit)
    }

    /// The streams of each payload type, and the pipeline track of each of their tracks.
    private var sorters: [UInt8: (tracks: CaptureTracks, pipelineTracks: [Int])] = [:]
    private var reports = CaptureTracks()
    private let filter: StreamFilter
    private let followsFlows: Bool
    private var pipeline = MediaPipeline()
    package let formats: [UInt8: MediaFormat]
    /// The SDP's audio tracks made before their first packets; each taken by the first stream of its payload
    /// type.
    private var declared: [UInt8: Int] = [:]
    /// Events of the tracks made in `init`, handed on with the first datagram.
    private var pending: [Event] = []

    /// - Parameters:
    ///   - formats: the SDP's formats by payload type (empty without an SDP).
    package init(formats: [UInt8: MediaFormat], filter: StreamFilter = StreamFilter(), followsFlows: Bool = false) {
        self.formats = formats
        self.filter = filter
        self.followsFlows = followsFlows
        for (payloadType, format) in formats.sorted(by: { $0.key < $1.key }) where format.kind == .audio {
            guard filter.payloadType.map({ $0 == payloadType }) ?? true else { continue }
            declared[payloadType] = pipeline.trackCount
            pending.append(addTrack(payloadType: payloadType))
        }
    }

    /// The events of the tracks made before any datagram (the SDP's audio tracks).
    package mutating func start(emit: (Event) throws -> Void) rethrows {
        for event in pending { try emit(event) }
        pending = []
    }

    /// Offers a datagram of a capture; `emit` receives the tracks it makes and the units it completes.
    package mutating func add(_ datagram: consuming UDPDatagram, emit: (Event) throws -> Void) rethrows {
        try add(ReceivedItem(datagram), emit: emit)
    }

    /// Offers a received item; `emit` receives the tracks it makes and the units it completes.
    package mutating func add(_ item: consuming ReceivedItem, emit: (Event) throws -> Void) rethrows {
        try start(emit: emit)
        let payloadType: UInt8
        switch item.content {
        case .rtcp:
            if case .senderReports(let reports)? = reports.sort(item) {
                for report in reports { pipeline.receiveSenderReport(report) }
            }
            return
        case .rtp(let packet): payloadType = packet.payloadType
        case .unreadableRTP(let header, _, _): payloadType = header.payloadType
        case .notRTP: return
        }
        if sorters[payloadType] == nil {
            var narrowed = filter
            narrowed.payloadType = payloadType
            guard filter.payloadType.map({ $0 == payloadType }) ?? true else { return }
            sorters[payloadType] = (CaptureTracks(filter: narrowed, followsFlows: followsFlows), [])
        }
        guard case .packet(var received, let isNew)? = sorters[payloadType]?.tracks.sort(item) else { return }
        if isNew, let sorter = sorters[payloadType] {
            let track = declared.removeValue(forKey: payloadType) ?? pipeline.trackCount
            sorters[payloadType]?.pipelineTracks.append(track)
            if track == pipeline.trackCount { try emit(addTrack(payloadType: payloadType)) }
            try emit(.stream(track, sorter.tracks.stream(track: received.track)))
        }
        received.track = sorters[payloadType]?.pipelineTracks[received.track] ?? received.track
        pipeline.push(received)
        while let unit = pipeline.next() { try emit(.unit(unit)) }
    }

    /// Ends every stream.
    package mutating func finish(emit: (Event) throws -> Void) rethrows {
        try start(emit: emit)
        pipeline.finish()
        while let unit = pipeline.next() { try emit(.unit(unit)) }
    }

    /// The depacketizer of a track (its codec, parameter sets and counters).
    package func depacketizer(track: Int) -> Depacketizer? { pipeline.depacketizer(track: track) }

    private mutating func addTrack(payloadType: UInt8) -> Event {
        let track = pipeline.trackCount
        let format = formats[payloadType]
        _ = pipeline.addTrack(format.map { Depacketizer(format: $0) } ?? .sniffing())
        return .track(track, payloadType: payloadType, format: format)
    }
}
