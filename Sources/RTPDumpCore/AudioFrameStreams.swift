import Audio
import MediaPipeline
import PacketCapture
import RTP
import SDP

/// The audio streams of a capture (or a live session's datagrams) through the library's ``MediaPipeline``:
/// every stream the filter admits (narrowed to the format's payload type) is a track taken apart as
/// `format` says. What `rtpdump frames` and the audio side of `extract` read.
package struct AudioFrameStreams: Sendable {
    package let format: AudioFormat
    private var tracks: CaptureTracks
    private var pipeline: MediaPipeline

    /// - Throws: ``AudioError`` when the format's configuration cannot be read.
    package init(
        format: AudioFormat, filter: StreamFilter = StreamFilter(), reorder: ReorderBuffer.Configuration = .audio,
        followsFlows: Bool = false
    ) throws(AudioError) {
        self.format = format
        _ = try AudioDepacketizer(format: format)  // refused here, with its reason, rather than per stream
        var narrowed = filter
        narrowed.payloadType = narrowed.payloadType ?? format.payloadType
        tracks = CaptureTracks(filter: narrowed, followsFlows: followsFlows)
        pipeline = MediaPipeline(audioReorder: reorder)
    }

    /// Offers a datagram of a capture; `emit` receives the frames it completes, with their stream.
    package mutating func add(_ datagram: consuming UDPDatagram, emit: (StreamKey, AudioFrame) -> Void) {
        add(ReceivedItem(datagram), emit: emit)
    }

    /// Offers a received item; `emit` receives the frames it completes, with their stream.
    package mutating func add(_ item: consuming ReceivedItem, emit: (StreamKey, AudioFrame) -> Void) {
        switch tracks.sort(consume item) {
        case .packet(let received, let isNew):
            if isNew { _ = pipeline.addTrack(Depacketizer(format: .audio(format))) }
            pipeline.push(consume received)
            handOn(emit: emit)
        case .senderReports(let reports):
            for report in reports { pipeline.receiveSenderReport(report) }
        case nil:
            return
        }
    }

    /// Ends every stream.
    package mutating func finish(emit: (StreamKey, AudioFrame) -> Void) {
        pipeline.finish()
        handOn(emit: emit)
    }

    /// The depacketizer of each stream, in order of appearance (its counters, its configuration).
    package var depacketizers: [(StreamKey, AudioDepacketizer)] {
        (0..<pipeline.trackCount).compactMap { track in
            pipeline.depacketizer(track: track)?.audio.map { (tracks.stream(track: track), $0) }
        }
    }

    private mutating func handOn(emit: (StreamKey, AudioFrame) -> Void) {
        while let unit = pipeline.next() {
            guard case .audio(let frame) = unit else { continue }
            emit(tracks.stream(track: frame.track), frame)
        }
    }
}

extension AudioFrameStreams {
    /// Reads `source` to its end and gives `body` each frame of the first stream the filter admits, with the
    /// AAC configuration its depacketizer holds (the fmtp's, or LATM's that came in band). Frames are handed
    /// on once the datagram that completed them has been taken in. After `body` throws, the rest is read and
    /// not given, and the error is thrown at the end.
    ///
    /// - Returns: the stream given, and what ended the input early (a capture cut short), if anything.
    /// - Throws: ``RTPDumpError`` when the format's configuration cannot be read; `body`'s error.
    package static func firstStream<Source: ReceivedItemSource>(
        of source: inout Source, format: AudioFormat, filter: StreamFilter, followsFlows: Bool,
        _ body: (AudioFrame, _ configuration: AudioSpecificConfig?) throws -> Void
    ) throws -> (stream: StreamKey?, inputFailure: (any Error)?) {
        var streams: AudioFrameStreams
        do {
            streams = try AudioFrameStreams(
                format: format, filter: filter, followsFlows: followsFlows)
        } catch {
            throw RTPDumpError("\(error)")
        }
        var chosen: StreamKey?
        // Asked once, with the chosen stream's first frame: LATM's in-band configuration comes before its
        // first frame, and the other codecs have none to ask for.
        var configuration: AudioSpecificConfig?
        var asked = false
        var failure: (any Error)?
        // `streams` cannot be asked for its depacketizer's configuration while it adds: frames wait here.
        var batch: [(StreamKey, AudioFrame)] = []
        func handOn() {
            defer { batch.removeAll(keepingCapacity: true) }
            for (key, frame) in batch where failure == nil {
                chosen = chosen ?? key
                guard key == chosen else { continue }
                if !asked {
                    configuration = streams.depacketizers.first { $0.0 == key }?.1.audioSpecificConfig
                    asked = true
                }
                do { try body(frame, configuration) } catch { failure = error }
            }
        }
        let inputFailure = RTPDumpCore.failure {
            try source.forEachItem { datagram in
                streams.add(datagram) { key, frame in batch.append((key, frame)) }
                if !batch.isEmpty { handOn() }
            }
        }
        streams.finish { key, frame in batch.append((key, frame)) }
        handOn()
        if let failure { throw failure }
        return (chosen, inputFailure)
    }
}
