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
    /// The streams of each payload type, and the pipeline track of each of their tracks.
    private var sorters: [UInt8: (tracks: CaptureTracks, pipelineTracks: [Int])] = [:]
    private var reports = CaptureTracks()
    private let filter: StreamFilter
    private let followsFlows: Bool
    /// Each pipeline track's stream, once its first packet has come.
    private var streams: [Int: StreamKey] = [:]
    private var pipeline = MediaPipeline()
    private var writer: FragmentedMP4Writer
    private let formats: [UInt8: MediaFormat]
    /// Tracks of the pipeline the writer takes, and those it does not.
    private var recorded: Set<Int> = []
    private var notRecorded: Set<Int> = []
    /// Each track's payload type (its first packet's).
    private var payloadTypes: [Int: UInt8] = [:]
    /// The SDP's audio tracks, made (and given to the writer) before their first packets, which may come after
    /// the first keyframe has started the recording; each taken by the first stream of its payload type.
    private var declared: [UInt8: Int] = [:]
    /// Why a track is not recorded, until its stream is known.
    private var reasons: [Int: String] = [:]
    /// The streams left out, each with the reason.
    package private(set) var streamsLeftOut: [(stream: StreamKey, reason: String)] = []

    /// - Parameters:
    ///   - formats: the SDP's formats by payload type (empty without an SDP).
    package init(
        formats: [UInt8: MediaFormat], filter: StreamFilter = StreamFilter(), followsFlows: Bool = false,
        configuration: FragmentedMP4Writer.Configuration
    ) {
        self.formats = formats
        self.filter = filter
        self.followsFlows = followsFlows
        var configuration = configuration
        configuration.waitsForVideo = formats.isEmpty || formats.values.contains { $0.kind == .video }
        writer = FragmentedMP4Writer(configuration: configuration)
        for (payloadType, format) in formats.sorted(by: { $0.key < $1.key }) where format.kind == .audio {
            guard filter.payloadType.map({ $0 == payloadType }) ?? true else { continue }
            declared[payloadType] = pipeline.trackCount
            addTrack(payloadType: payloadType)
        }
    }

    package var statistics: FragmentedMP4Writer.Statistics { writer.statistics }
    package var lastError: MP4Error? { writer.lastError }

    /// Offers a datagram; `emit` receives what is ready to be written.
    package mutating func add(_ datagram: consuming UDPDatagram, emit: (MP4Output) throws -> Void) throws {
        let payload = datagram.payload
        if RTPPacket.looksLikeRTCP(payload) {
            if case .senderReports(let reports)? = reports.sort(datagram) {
                for report in reports { pipeline.receiveSenderReport(report) }
            }
            return
        }
        guard payload.count >= 2 else { return }
        let payloadType = payload[payload.startIndex + 1] & 0x7F
        if sorters[payloadType] == nil {
            var narrowed = filter
            narrowed.payloadType = payloadType
            guard filter.payloadType.map({ $0 == payloadType }) ?? true else { return }
            sorters[payloadType] = (CaptureTracks(filter: narrowed, followsFlows: followsFlows), [])
        }
        guard case .packet(var received, let isNew)? = sorters[payloadType]?.tracks.sort(datagram) else { return }
        if isNew, let sorter = sorters[payloadType] {
            let track = declared.removeValue(forKey: payloadType) ?? pipeline.trackCount
            sorters[payloadType]?.pipelineTracks.append(track)
            streams[track] = sorter.tracks.stream(track: received.track)
            if track == pipeline.trackCount { addTrack(payloadType: payloadType) }
            if let reason = reasons.removeValue(forKey: track), let stream = streams[track] {
                streamsLeftOut.append((stream, reason))
            }
        }
        received.track = sorters[payloadType]?.pipelineTracks[received.track] ?? received.track
        pipeline.push(received)
        try handOn(emit: emit)
    }

    /// Ends every stream and writes the last fragment.
    package mutating func finish(emit: (MP4Output) throws -> Void) throws {
        pipeline.finish()
        try handOn(emit: emit)
        try writer.finish(emit: emit)
    }

    private mutating func addTrack(payloadType: UInt8) {
        let track = pipeline.trackCount
        payloadTypes[track] = payloadType
        guard let format = formats[payloadType] else {
            _ = pipeline.addTrack(.sniffing())
            return
        }
        _ = pipeline.addTrack(Depacketizer(format: format))
        if case .video = format { return }  // added with its first picture, as sniffed ones
        leaveOut(track, FragmentedMP4Writer.problem(recording: format)) { (writer) throws(MP4Error) in
            try writer.addTrack(track, format: format)
        }
    }

    private mutating func handOn(emit: (MP4Output) throws -> Void) throws {
        while let unit = pipeline.next() {
            if case .video(let picture) = unit, !recorded.contains(unit.track), !notRecorded.contains(unit.track) {
                let payloadType = payloadTypes[unit.track] ?? 96
                let format = formats[payloadType] ?? .video(VideoFormat(codec: picture.codec, payloadType: payloadType))
                leaveOut(unit.track, nil) { (writer) throws(MP4Error) in try writer.addTrack(unit.track, format: format) }
            }
            guard recorded.contains(unit.track) else { continue }
            try writer.append(unit, emit: emit)
        }
    }

    /// Adds the track to the writer, or leaves it out with the reason (`problem`, or what adding threw).
    private mutating func leaveOut(_ track: Int, _ problem: MP4Error?, add: (inout FragmentedMP4Writer) throws(MP4Error) -> Void) {
        var reason = problem
        if reason == nil {
            do throws(MP4Error) { try add(&writer) } catch { reason = error }
        }
        if let reason {
            notRecorded.insert(track)
            if let stream = streams[track] { streamsLeftOut.append((stream, reason.reason)) } else { reasons[track] = reason.reason }
        } else {
            recorded.insert(track)
        }
    }
}
