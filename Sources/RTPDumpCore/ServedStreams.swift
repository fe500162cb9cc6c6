import H26x
import MediaPipeline
import PacketCapture
import RTP
import SDP

/// The tracks of a capture (or a live session) that a server can send, and their units: what `rtpdump serve`
/// reads. H.264 and H.265 are announced with the parameter sets of their first keyframe (and the SDP's), Motion
/// JPEG as its SDP says (else by its payload type), audio as the SDP describes it. Streams a ``Packetizer`` cannot send
/// are left out with the reason.
package struct ServedStreams: Sendable {
    /// A track served: the capture's pipeline track, and the format it is announced with.
    package struct Track: Sendable {
        package var source: Int
        package var format: MediaFormat
    }

    package private(set) var tracks: [Track] = []
    /// Why each stream left out is left out.
    package private(set) var leftOut: [String] = []
    private var streams: CaptureMediaStreams
    /// Per pipeline track: its served index, once known.
    private var servedIndex: [Int: Int] = [:]
    /// Per pipeline track being surveyed: its payload type, the parameter sets seen so far, and whether a
    /// keyframe came.
    private var survey: [Int: (payloadType: UInt8, sets: ParameterSets?, format: MediaFormat?, done: Bool)] = [:]

    package init(formats: [UInt8: MediaFormat], filter: StreamFilter = StreamFilter(), followsFlows: Bool = false) {
        streams = CaptureMediaStreams(formats: formats, filter: filter, followsFlows: followsFlows)
    }

    /// Reads `source` to its end (a capture's first pass) to learn its tracks' formats.
    package static func survey(
        _ source: inout some ReceivedItemSource, formats: [UInt8: MediaFormat], filter: StreamFilter = StreamFilter(),
        followsFlows: Bool = false
    ) throws -> ServedStreams {
        var served = ServedStreams(formats: formats, filter: filter, followsFlows: followsFlows)
        var events: [CaptureMediaStreams.Event] = []
        try source.forEachItem { item in
            served.streams.add(item) { events.append($0) }
            for event in events { served.learn(event) }
            events.removeAll(keepingCapacity: true)
        }
        served.streams.finish { events.append($0) }
        for event in events { served.learn(event) }
        served.settle()
        return served
    }

    /// The tracks announced up front, for a live session whose SDP says everything: each of `formats` a
    /// packetizer sends, in order, served from the session's track of its payload type once its first packet
    /// (or the SDP, for audio) makes it.
    package static func announced(
        formats: [MediaFormat], filter: StreamFilter = StreamFilter(), followsFlows: Bool = false
    ) -> ServedStreams {
        let byType = Dictionary(formats.map { ($0.payloadType, $0) }, uniquingKeysWith: { first, _ in first })
        var served = ServedStreams(formats: byType, filter: filter, followsFlows: followsFlows)
        for format in formats { served.serve(format, from: -1, named: "\(format.kind) track") }
        return served
    }

    /// A fresh reader of the same tracks (a capture's second pass, or its next loop).
    package func replaying(
        formats: [UInt8: MediaFormat], filter: StreamFilter = StreamFilter(), followsFlows: Bool = false
    )
        -> ServedStreams
    {
        var fresh = self
        fresh.streams = CaptureMediaStreams(formats: formats, filter: filter, followsFlows: followsFlows)
        return fresh
    }

    /// Offers a datagram of a capture; `emit` gets each unit of a served track, with the track's served index.
    package mutating func add(_ datagram: consuming UDPDatagram, emit: (Int, MediaUnit) throws -> Void) rethrows {
        try add(ReceivedItem(datagram), emit: emit)
    }

    /// Offers a received item; `emit` gets each unit of a served track, with the track's served index.
    package mutating func add(_ item: consuming ReceivedItem, emit: (Int, MediaUnit) throws -> Void) rethrows {
        var units: [(Int, MediaUnit)] = []
        streams.add(item) { event in
            switch event {
            case .track(let track, let payloadType, _):
                // A live session's track, made on its first packet: served when its format was announced.
                if servedIndex[track] == nil,
                    let index = tracks.firstIndex(where: { $0.format.payloadType == payloadType && $0.source < 0 })
                {
                    tracks[index].source = track
                    servedIndex[track] = index
                }
            case .unit(let unit, _):
                if let index = servedIndex[unit.track] { units.append((index, unit)) }
            case .stream: break
            }
        }
        for (index, unit) in units { try emit(index, unit) }
    }

    /// Ends the streams; `emit` gets the last units.
    package mutating func finish(emit: (Int, MediaUnit) throws -> Void) rethrows {
        var units: [(Int, MediaUnit)] = []
        streams.finish { event in
            if case .unit(let unit, _) = event, let index = servedIndex[unit.track] { units.append((index, unit)) }
        }
        for (index, unit) in units { try emit(index, unit) }
    }

    /// What a capture's first pass learns from an event: each track's payload type and SDP format, and for
    /// video the parameter sets up to its first keyframe.
    private mutating func learn(_ event: CaptureMediaStreams.Event) {
        switch event {
        case .track(let track, let payloadType, let format):
            survey[track] = (payloadType, nil, format, format?.kind != .video && format != nil)
        case .unit(.video(let picture), _) where picture.codec == .jpeg:
            guard var entry = survey[picture.track], !entry.done else { return }
            entry.done = true
            entry.format = entry.format ?? .video(VideoFormat(codec: .jpeg, payloadType: entry.payloadType))
            survey[picture.track] = entry
        case .unit(.video(let picture), _):
            guard var entry = survey[picture.track], !entry.done else { return }
            var sets = entry.sets ?? ParameterSets(codec: picture.codec)
            for nal in picture.nalUnits where nal.isParameterSet { sets.update(nal) }
            entry.sets = sets
            if picture.isKeyframe {
                entry.done = true
                var video = VideoFormat(parameterSets: sets, payloadType: entry.payloadType)
                if case .video(let described)? = entry.format, video.parameterSetAttributes.isEmpty {
                    video.parameterSetAttributes = described.parameterSetAttributes
                }
                entry.format = .video(video)
            }
            survey[picture.track] = entry
        case .unit, .stream: return
        }
    }

    /// Serves every surveyed track whose format a packetizer sends, in the order the tracks were made.
    private mutating func settle() {
        for (track, entry) in survey.sorted(by: { $0.key < $1.key }) {
            guard let format = entry.format, entry.done else {
                leftOut.append("track \(track) (payload type \(entry.payloadType)): no keyframe, or not video")
                continue
            }
            serve(format, from: track, named: "track \(track)")
        }
    }

    /// Serves the track `source` (-1: made later) as `format` when a packetizer sends it, else says why not.
    private mutating func serve(_ format: MediaFormat, from source: Int, named name: String) {
        do throws(PacketizerError) {
            _ = try Packetizer(format: format)
            if source >= 0 { servedIndex[source] = tracks.count }
            tracks.append(Track(source: source, format: format))
        } catch {
            leftOut.append("\(name) (\(format.encodingName)): \(error)")
        }
    }
}
