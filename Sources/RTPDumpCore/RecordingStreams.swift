import MP4
import MediaPipeline
import PacketCapture
import RTP
import SDP

/// Every video and audio stream of a capture (or a live session's datagrams) through the library's
/// ``MediaPipeline`` into one ``FragmentedMP4Writer``: what `rtpdump record` reads.
///
/// A stream is taken as the SDP's format of its payload type says; without one, video is sniffed (and
/// audio, which cannot be, is left out). Streams MP4 does not carry are left out with the reason.
///
/// Streams are told apart by payload type first: a captured RTSP session over TCP carries every track in
/// one flow, which the SDP's payload types divide.
package struct RecordingStreams: Sendable {
    private var streams: CaptureMediaStreams
    /// Each track's stream, once its first packet has come.
    private var streamKeys: [Int: StreamKey] = [:]
    private var writer: Recording
    /// Tracks of the pipeline the writer takes, and those it does not.
    private var recorded: Set<Int> = []
    private var notRecorded: Set<Int> = []
    /// Each track's payload type.
    private var payloadTypes: [Int: UInt8] = [:]
    /// Why a track is not recorded, until its stream is known.
    private var reasons: [Int: String] = [:]
    /// What the streams gave for one datagram, kept to be reused (nothing allocated per unit).
    private var events: [CaptureMediaStreams.Event] = []
    /// The streams left out, each with the reason.
    package private(set) var streamsLeftOut: [(stream: StreamKey, reason: String)] = []

    /// - Parameters:
    ///   - formats: the SDP's formats by payload type (empty without an SDP).
    ///   - events: record only events (``startEvent(emit:)`` to ``stopEvent()``), each with its pre-roll and
    ///     post-roll, as this says; nil records everything.
    package init(
        formats: [UInt8: MediaFormat], filter: StreamFilter = StreamFilter(), followsFlows: Bool = false,
        configuration: FragmentedMP4Writer.Configuration, events: EventRecorder.Configuration? = nil
    ) {
        var configuration = configuration
        configuration.waitsForVideo = formats.isEmpty || formats.values.contains { $0.kind == .video }
        if var events {
            events.writer = configuration
            writer = .events(EventRecorder(configuration: events))
        } else {
            writer = .continuous(FragmentedMP4Writer(configuration: configuration))
        }
        streams = CaptureMediaStreams(formats: formats, filter: filter, followsFlows: followsFlows)
        // The SDP's audio tracks are in the recording from its start, whenever their first packets come.
        var events: [CaptureMediaStreams.Event] = []
        streams.start { events.append($0) }
        for event in events { try? handle(event, emit: { _ in }) }
    }

    package var statistics: FragmentedMP4Writer.Statistics { writer.statistics }
    package var lastError: MP4Error? { writer.lastError }
    /// Events recorded so far (0 when everything is).
    package var eventCount: Int { if case .events(let recorder) = writer { recorder.events } else { 0 } }

    /// Whether an event is being recorded now (its post-roll included).
    package var isRecordingEvent: Bool {
        if case .events(let recorder) = writer { recorder.isRecording } else { false }
    }

    /// An event begins: its pre-roll is written, then what comes. Nothing happens when everything is recorded.
    package mutating func startEvent(emit: (MP4Output) throws -> Void) throws {
        try writer.events { (recorder: inout EventRecorder) in try recorder.start(emit: emit) }
    }

    /// The event ends after its post-roll.
    package mutating func stopEvent() {
        writer.events { (recorder: inout EventRecorder) in recorder.stop() }
    }

    /// Offers a datagram of a capture; `emit` receives what is ready to be written.
    package mutating func add(_ datagram: consuming UDPDatagram, emit: (MP4Output) throws -> Void) throws {
        try add(ReceivedItem(datagram), emit: emit)
    }

    /// Offers a received item; `emit` receives what is ready to be written.
    package mutating func add(_ item: consuming ReceivedItem, emit: (MP4Output) throws -> Void) throws {
        var events: [CaptureMediaStreams.Event] = []
        swap(&events, &self.events)
        defer {
            events.removeAll(keepingCapacity: true)
            swap(&events, &self.events)
        }
        streams.add(item) { events.append($0) }
        for event in events { try handle(event, emit: emit) }
    }

    /// Ends every stream and writes the last fragment.
    package mutating func finish(emit: (MP4Output) throws -> Void) throws {
        var events: [CaptureMediaStreams.Event] = []
        streams.finish { events.append($0) }
        for event in events { try handle(event, emit: emit) }
        try writer.finish(emit: emit)
    }

    private mutating func handle(_ event: CaptureMediaStreams.Event, emit: (MP4Output) throws -> Void) throws {
        switch event {
        case .track(let track, let payloadType, let format):
            payloadTypes[track] = payloadType
            guard let format else { return }
            if case .video = format { return }  // added with its first picture, as sniffed ones
            leaveOut(track, FragmentedMP4Writer.problem(recording: format)) { (writer) throws(MP4Error) in
                try writer.addTrack(track, format: format)
            }
        case .stream(let track, let key):
            streamKeys[track] = key
            if let reason = reasons.removeValue(forKey: track) { streamsLeftOut.append((key, reason)) }
        case .unit(let unit, _):
            if case .video(let picture) = unit, !recorded.contains(unit.track), !notRecorded.contains(unit.track) {
                let payloadType = payloadTypes[unit.track] ?? 96
                let format =
                    streams.formats[payloadType] ?? .video(VideoFormat(codec: picture.codec, payloadType: payloadType))
                leaveOut(unit.track, nil) { (writer) throws(MP4Error) in try writer.addTrack(unit.track, format: format)
                }
            }
            guard recorded.contains(unit.track) else { return }
            try writer.append(unit, emit: emit)
        }
    }

    /// Adds the track to the writer, or leaves it out with the reason (`problem`, or what adding threw).
    private mutating func leaveOut(_ track: Int, _ problem: MP4Error?, add: (inout Recording) throws(MP4Error) -> Void)
    {
        var reason = problem
        if reason == nil {
            do throws(MP4Error) { try add(&writer) } catch { reason = error }
        }
        if let reason {
            notRecorded.insert(track)
            if let stream = streamKeys[track] {
                streamsLeftOut.append((stream, reason.reason))
            } else {
                reasons[track] = reason.reason
            }
        } else {
            recorded.insert(track)
        }
    }
}

/// Everything into one writer, or only events. Each mutation takes its payload out first (`modifying` in its
/// place), so that the writer's buffers are not copied on write for every unit.
enum Recording: Sendable {
    case continuous(FragmentedMP4Writer)
    case events(EventRecorder)
    case modifying

    var statistics: FragmentedMP4Writer.Statistics {
        switch self {
        case .continuous(let writer): writer.statistics
        case .events(let recorder): recorder.statistics
        case .modifying: .init()
        }
    }

    var lastError: MP4Error? {
        switch self {
        case .continuous(let writer): writer.lastError
        case .events(let recorder): recorder.lastError
        case .modifying: nil
        }
    }

    /// `body` on the event recorder, when events are recorded.
    mutating func events<T>(_ body: (inout EventRecorder) throws -> T) rethrows -> T? {
        guard case .events(var recorder) = self else { return nil }
        self = .modifying
        defer { self = .events(recorder) }
        return try body(&recorder)
    }

    /// `continuous` on the writer, or `events` on the event recorder.
    private mutating func either<T>(
        _ continuous: (inout FragmentedMP4Writer) throws -> T, _ events: (inout EventRecorder) throws -> T
    ) rethrows -> T? {
        switch self {
        case .continuous(var writer):
            self = .modifying
            defer { self = .continuous(writer) }
            return try continuous(&writer)
        case .events(var recorder):
            self = .modifying
            defer { self = .events(recorder) }
            return try events(&recorder)
        case .modifying:
            return nil
        }
    }

    mutating func addTrack(_ track: Int, format: MediaFormat) throws(MP4Error) {
        var problem: MP4Error?
        either(
            { (writer: inout FragmentedMP4Writer) in
                do throws(MP4Error) { try writer.addTrack(track, format: format) } catch { problem = error }
            },
            { (recorder: inout EventRecorder) in
                do throws(MP4Error) { try recorder.addTrack(track, format: format) } catch { problem = error }
            })
        if let problem { throw problem }
    }

    mutating func append(_ unit: MediaUnit, emit: (MP4Output) throws -> Void) throws {
        try either({ try $0.append(unit, emit: emit) }, { try $0.append(unit, emit: emit) })
    }

    mutating func finish(emit: (MP4Output) throws -> Void) throws {
        try either({ try $0.finish(emit: emit) }, { try $0.finish(emit: emit) })
    }
}
