import Audio
import H26x
import MediaPipeline
import PacketCapture
import RTP
import SDP

/// The streams of any input (a capture, a captured RTSP session, a live session) through the library's
/// ``MediaPipeline``, as media units of numbered tracks: the one adapter every `rtpdump` command that
/// depacketizes reads (`nals`, `frames`, `extract`, `decode`, `record`, `serve`), each asking for the kinds of
/// unit it takes.
///
/// A stream is taken as `formats` says of its payload type (an SDP's); a stream none describes starts from
/// `undescribed` (a codec the user named, the session's video format), else is sniffed (video is found in its
/// first payloads; audio, which cannot be, is left out with the reason).
///
/// With `splitsByPayloadType`, streams are told apart by payload type first: a captured RTSP session over TCP
/// carries every track in one flow, which the SDP's payload types divide; the SDP's audio tracks are then
/// made before their first packets (a consumer that sets its tracks up at the start needs them there).
package struct CaptureMediaStreams: Sendable {
    /// What reading an item gives.
    package enum Event: Sendable {
        /// A track was made: its payload type, and its format when the SDP gives one (nil: sniffed or given).
        case track(Int, payloadType: UInt8, format: MediaFormat?)
        /// A track's first packet came: the stream it is.
        case stream(Int, StreamKey)
        /// A unit of a kind asked for, and its track's stream.
        case unit(MediaUnit, StreamKey)
    }

    package let formats: [UInt8: MediaFormat]
    private let undescribed: Depacketizer?
    private let filter: StreamFilter
    private let followsFlows: Bool
    private let splitsByPayloadType: Bool
    /// Without splitting: every stream, each track the pipeline's track of the same number.
    private var flow: CaptureTracks
    /// With splitting: the streams of each payload type, and the pipeline track of each of their tracks.
    private var sorters: [UInt8: (tracks: CaptureTracks, pipelineTracks: [Int])] = [:]
    /// The kinds of unit handed on (``Event/unit(_:_:)``), as bits (``MediaKind/bit``): asked of every unit. The
    /// others are taken apart and counted, not given.
    private let kindBits: UInt8
    private var pipeline: MediaPipeline
    /// Each pipeline track's stream, once its first packet has come.
    private var streamKeys: [StreamKey?] = []
    /// Units handed on, per pipeline track.
    private var handedOn: [Int] = []
    /// The SDP's audio tracks made before their first packets; each taken by the first stream of its payload
    /// type.
    private var declared: [UInt8: Int] = [:]
    /// Events of the tracks made in `init`, handed on with the first item.
    private var pending: [Event] = []

    /// - Parameters:
    ///   - formats: the SDP's formats by payload type (empty without an SDP).
    ///   - undescribed: where a stream none of `formats` describes starts (nil: sniffed).
    ///   - kinds: the units handed on.
    package init(
        formats: [UInt8: MediaFormat] = [:], undescribed: Depacketizer? = nil,
        kinds: Set<MediaKind> = Set(MediaKind.allCases), filter: StreamFilter = StreamFilter(),
        reorder: ReorderBuffer.Configuration = .init(), audioReorder: ReorderBuffer.Configuration = .audio,
        followsFlows: Bool = false, splitsByPayloadType: Bool = true
    ) {
        self.formats = formats
        self.undescribed = undescribed
        self.filter = filter
        self.followsFlows = followsFlows
        self.splitsByPayloadType = splitsByPayloadType
        kindBits = kinds.reduce(0) { $0 | $1.bit }
        pipeline = MediaPipeline(reorder: reorder, audioReorder: audioReorder)
        flow = CaptureTracks(filter: filter, followsFlows: followsFlows)
        guard splitsByPayloadType else { return }
        for (payloadType, format) in formats.sorted(by: { $0.key < $1.key }) where format.kind == .audio {
            guard filter.payloadType.map({ $0 == payloadType }) ?? true else { continue }
            declared[payloadType] = pipeline.trackCount
            pending.append(addTrack(payloadType: payloadType))
        }
    }

    /// The events of the tracks made before any item (the SDP's audio tracks).
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
        try take(consume item, tracks: emit, units: { try emit(.unit($1, $0)) })
    }

    /// Takes an item in: `tracks` receives the events of its tracks, `units` the units it completes (apart, so
    /// that a unit is not wrapped in an event for a reader that takes only units).
    @inline(__always)
    private mutating func take(
        _ item: consuming ReceivedItem, tracks: (Event) throws -> Void, units: (StreamKey, MediaUnit) throws -> Void
    ) rethrows {
        if !pending.isEmpty { try start(emit: tracks) }
        guard splitsByPayloadType else { return try sortByFlow(consume item, tracks: tracks, units: units) }
        guard let payloadType = item.payloadType else {
            if case .rtcp(let reports) = item.content {
                for report in reports { pipeline.receiveSenderReport(report) }
            }
            return
        }
        if sorters[payloadType] == nil {
            guard filter.payloadType.map({ $0 == payloadType }) ?? true else { return }
            var narrowed = filter
            narrowed.payloadType = payloadType
            sorters[payloadType] = (CaptureTracks(filter: narrowed, followsFlows: followsFlows), [])
        }
        guard case .packet(var received, let isNew)? = sorters[payloadType]?.tracks.sort(item) else { return }
        if isNew, let sorter = sorters[payloadType] {
            let track = declared.removeValue(forKey: payloadType) ?? pipeline.trackCount
            sorters[payloadType]?.pipelineTracks.append(track)
            if track == pipeline.trackCount { try tracks(addTrack(payloadType: payloadType)) }
            try named(track, sorter.tracks.stream(track: received.track), tracks: tracks)
        }
        received.track = sorters[payloadType]?.pipelineTracks[received.track] ?? received.track
        pipeline.push(consume received)
        try handOn(units: units)
    }

    /// Without splitting: the item's stream is its track, of the same number in the pipeline.
    @inline(__always)
    private mutating func sortByFlow(
        _ item: consuming ReceivedItem, tracks: (Event) throws -> Void, units: (StreamKey, MediaUnit) throws -> Void
    ) rethrows {
        switch flow.sort(consume item) {
        case .packet(let received, let isNew)?:
            if isNew {
                let payloadType = received.packet.payloadType
                try tracks(addTrack(payloadType: payloadType))
                try named(received.track, flow.stream(track: received.track), tracks: tracks)
            }
            pipeline.push(consume received)
            try handOn(units: units)
        case .senderReports(let reports)?:
            for report in reports { pipeline.receiveSenderReport(report) }
        case nil:
            return
        }
    }

    private mutating func named(_ track: Int, _ key: StreamKey, tracks: (Event) throws -> Void) rethrows {
        streamKeys[track] = key
        try tracks(.stream(track, key))
    }

    /// Ends every stream.
    package mutating func finish(emit: (Event) throws -> Void) rethrows {
        try finish(tracks: emit, units: { try emit(.unit($1, $0)) })
    }

    /// Ends every stream: `tracks` receives the events of tracks not yet told, `units` the last units.
    private mutating func finish(
        tracks: (Event) throws -> Void, units: (StreamKey, MediaUnit) throws -> Void
    ) rethrows {
        try start(emit: tracks)
        pipeline.finish()
        try handOn(units: units)
    }

    @inline(__always)
    private mutating func handOn(units: (StreamKey, MediaUnit) throws -> Void) rethrows {
        while let unit = pipeline.next() {
            let track = unit.track
            guard kindBits & unit.kind.bit != 0, let key = streamKeys[track] else { continue }
            handedOn[track] += 1
            try units(key, unit)
        }
    }

    private mutating func addTrack(payloadType: UInt8) -> Event {
        let track = pipeline.trackCount
        let format = formats[payloadType]
        _ = pipeline.addTrack(format.map { Depacketizer(format: $0) } ?? undescribed ?? .sniffing())
        streamKeys.append(nil)
        handedOn.append(0)
        return .track(track, payloadType: payloadType, format: format)
    }
}

extension CaptureMediaStreams {
    /// The depacketizer of a track (its codec, parameter sets and counters).
    package func depacketizer(track: Int) -> Depacketizer? { pipeline.depacketizer(track: track) }

    /// Each track whose stream has come, in order: its stream and depacketizer.
    package var depacketizers: [(stream: StreamKey, depacketizer: Depacketizer)] {
        streamKeys.indices.compactMap { track in
            guard let key = streamKeys[track], let depacketizer = pipeline.depacketizer(track: track) else {
                return nil
            }
            return (key, depacketizer)
        }
    }

    /// The track of `stream`, once it has come.
    package func track(of stream: StreamKey) -> Int? { streamKeys.firstIndex(of: stream) }

    /// The reorder buffer of `stream`, for its counters.
    package func reorderBuffer(for stream: StreamKey) -> ReorderBuffer? {
        track(of: stream).flatMap { pipeline.reorderBuffer(track: $0) }
    }

    /// The streams sniffed and found not to be video (a static payload type, RFC 3551: PCMU, PCMA...), or
    /// never told: left out, each with the reason.
    package var streamsNotVideo: [(stream: StreamKey, reason: String)] {
        depacketizers.compactMap { stream, depacketizer in
            guard case .unplayable(let reason) = depacketizer.payload else { return nil }
            return (stream, reason)
        }
    }

    /// The video streams of a known codec none of whose pictures came out, each with the depacketizer's reason
    /// (a JPEG type or precision refused, payloads that do not read).
    package var streamsRefused: [(stream: StreamKey, reason: String)] {
        depacketizers.compactMap { stream, depacketizer in
            guard let track = track(of: stream), handedOn[track] == 0, let codec = depacketizer.videoCodec,
                let error = depacketizer.lastError
            else { return nil }
            return (stream, "no \(codec) picture came out of it: \(error)")
        }
    }

    /// Metadata documents dropped across the streams (a loss in or before them, too large, not inflating).
    package var droppedDocuments: Int {
        depacketizers.reduce(0) { $0 + ($1.depacketizer.metadata?.statistics.droppedDocuments ?? 0) }
    }

    /// The last reason a metadata document was dropped, over the streams (nil when none was).
    package var lastDropReason: String? {
        depacketizers.reversed().lazy.compactMap { $0.depacketizer.metadata?.lastError }.first
    }
}

extension MediaKind {
    /// One bit per kind, for a set asked of every unit.
    fileprivate var bit: UInt8 {
        switch self {
        case .video: 1
        case .audio: 2
        case .metadata: 4
        case .application: 8
        }
    }
}

extension MediaUnit {
    /// The kind of track it comes from.
    var kind: MediaKind {
        switch self {
        case .video: .video
        case .audio: .audio
        case .metadata: .metadata
        case .raw: .application
        }
    }
}

extension CaptureMediaStreams {
    /// The video streams of an input, one track per stream (payload types not told apart), each started from
    /// `template`, else from `codec`'s depacketizer, else sniffed: what `nals`, `extract` and `decode` read.
    package static func video(
        filter: StreamFilter = StreamFilter(), codec: VideoCodec? = nil,
        configuration: DepacketizerConfiguration = DepacketizerConfiguration(),
        reorder: ReorderBuffer.Configuration = .init(), template: Depacketizer? = nil, followsFlows: Bool = false
    ) -> CaptureMediaStreams {
        let start =
            template ?? codec.map { Depacketizer(codec: $0, configuration: configuration) }
            ?? .sniffing(configuration: configuration)
        return CaptureMediaStreams(
            undescribed: start, kinds: [.video], filter: filter, reorder: reorder, followsFlows: followsFlows,
            splitsByPayloadType: false)
    }

    /// The streams of one audio or data format (those of its payload type, unless `filter` names another),
    /// each taken apart as `format` says: what `frames` and `extract` read of audio and metadata.
    ///
    /// - Throws: ``AudioError`` when an audio format's configuration cannot be read (refused here, with its
    ///   reason, rather than per stream).
    package static func only(
        _ format: MediaFormat, filter: StreamFilter = StreamFilter(), followsFlows: Bool = false
    ) throws(AudioError) -> CaptureMediaStreams {
        if case .audio(let audio) = format { _ = try AudioDepacketizer(format: audio) }
        var narrowed = filter
        narrowed.payloadType = narrowed.payloadType ?? format.payloadType
        return CaptureMediaStreams(
            undescribed: Depacketizer(format: format), kinds: [format.kind], filter: narrowed,
            followsFlows: followsFlows, splitsByPayloadType: false)
    }

    /// Offers a received item; `emit` receives each unit it completes, with its stream.
    @inline(__always)
    package mutating func add(_ item: consuming ReceivedItem, units emit: (StreamKey, MediaUnit) throws -> Void)
        rethrows
    {
        try take(consume item, tracks: { _ in }, units: emit)
    }

    /// Offers a datagram of a capture; `emit` receives each unit it completes, with its stream.
    package mutating func add(_ datagram: consuming UDPDatagram, units emit: (StreamKey, MediaUnit) throws -> Void)
        rethrows
    {
        try add(ReceivedItem(datagram), units: emit)
    }

    /// Ends every stream; `emit` receives the last units, with their streams.
    package mutating func finish(units emit: (StreamKey, MediaUnit) throws -> Void) rethrows {
        try finish(tracks: { _ in }, units: emit)
    }
}
