import Foundation
import H26x
import PacketCapture
import RTP
import RTPDumpCore
import RTSPServer
import SDP

/// What `serve` and `publish` send: INPUT (a capture at its captured pace, an rtsp:// URL relayed, an Annex B file
/// at --fps) as a `MediaSource`, and the loop that pushes its units into it.
struct ServedInput {
    let options: InputOptions
    /// An Annex B file's picture rate.
    let fps: Double
    /// Play a capture or a file again from its start each time it ends.
    let loop: Bool
    /// Set up a relayed camera's ONVIF backchannel too.
    let backchannel: Bool

    /// INPUT opened: its source, what it holds (for the user), the live session of a URL, and its playing.
    struct Opened {
        let source: MediaSource
        let description: String
        let live: LiveSessionSource?
        /// Pushes the units into the source: a capture or a file once its source has a subscriber (at its pace),
        /// a URL as its units come; returns at the input's end.
        let play: () throws -> Void
    }

    /// Opens INPUT; `make` makes the source of its formats.
    func open(_ make: ([MediaFormat]) throws -> MediaSource) throws -> Opened {
        if let codec = annexBCodec { return try openAnnexB(codec: codec, make) }
        let (datagrams, session) = try options.openSource(media: [.video, .audio], backchannel: backchannel)
        var filter = options.filter
        filter.port = nil
        let formats = try options.sdpFormats(session: session)
        let followsFlows = session != nil
        var streams: ServedStreams
        if options.isURL {
            // Not the camera's backchannel (--talk): the client sends on it.
            let described =
                try options.sdpDescription(session: session)?.media.filter { !$0.isBackchannel }.compactMap(
                    \.mediaFormat)
                ?? []
            streams = ServedStreams.announced(formats: described, filter: filter, followsFlows: true)
        } else {
            var survey = datagrams
            streams = try ServedStreams.survey(&survey, formats: formats, filter: filter, followsFlows: followsFlows)
        }
        for reason in streams.leftOut { printError("note: not served: \(reason)") }
        guard !streams.tracks.isEmpty else {
            throw RTPDumpError(
                "nothing to serve in \(options.displayName): no H.264, H.265 or Motion JPEG video, "
                    + "and no audio its SDP describes")
        }
        let source = try make(streams.tracks.map(\.format))
        let description =
            "\(streams.tracks.count) track(s): \(streams.tracks.map { $0.format.encodingName }.joined(separator: ", "))"
        let (input, loop) = (options.input, self.loop)
        let play = { [streams] in
            var streams = streams
            if options.isURL {
                var live = datagrams
                try CaptureServing.push(&live, streams: &streams, into: source, paced: false)
                return
            }
            waitFor { await source.waitForSubscriber() }
            // Read again from its start for each playing: the survey read the first opening to its end.
            repeat {
                var capture = try CaptureInput.openWithSession(input).source
                var replay = streams.replaying(formats: formats, filter: filter, followsFlows: followsFlows)
                try CaptureServing.push(&capture, streams: &replay, into: source, paced: true)
            } while loop
        }
        return Opened(source: source, description: description, live: datagrams as? LiveSessionSource, play: play)
    }

    /// The codec of an Annex B file (`.h264`, `.264`, `.h265`, `.265`, `.hevc`, or --codec), nil for a capture.
    private var annexBCodec: VideoCodec? {
        guard !options.isURL else { return nil }
        let name = options.input.lowercased()
        if name.hasSuffix(".h264") || name.hasSuffix(".264") { return options.codec ?? .h264 }
        if name.hasSuffix(".h265") || name.hasSuffix(".265") || name.hasSuffix(".hevc") {
            return options.codec ?? .h265
        }
        return nil
    }

    /// An Annex B file: its access units at --fps, announced with the parameter sets of its first keyframe.
    private func openAnnexB(codec: VideoCodec, _ make: ([MediaFormat]) throws -> MediaSource) throws -> Opened {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: options.input)) else {
            throw RTPDumpError("cannot read \(options.input)")
        }
        let bytes = [UInt8](data)
        let groups = AccessUnitSplitter.accessUnits(in: bytes, codec: codec)
        var sets = ParameterSets(codec: codec)
        for nal in groups.lazy.flatMap({ $0 }) { _ = sets.update(NALUnit(codec: codec, bytes: nal)) }
        guard !groups.isEmpty, !sets.isEmpty else {
            throw RTPDumpError("\(options.input) holds no \(codec) access unit with parameter sets (is it Annex B?)")
        }
        let source = try make([.video(VideoFormat(parameterSets: sets))])
        let (fps, loop) = (self.fps, self.loop)
        let play = {
            waitFor { await source.waitForSubscriber() }
            let ticks = 90_000 / fps
            var played = 0
            repeat {
                let start = ArrivalTime.now()
                for (index, nalUnits) in groups.enumerated() {
                    CaptureServing.sleep(until: start + .nanoseconds(Int64(Double(index) / fps * 1e9)))
                    let timestamp = UInt64((Double(played + index) * ticks).rounded())
                    source.push(
                        .video(AccessUnit(codec: codec, timestamp: timestamp, nalUnits: nalUnits)), capturedAt: .now())
                }
                played += groups.count
            } while loop
        }
        return Opened(
            source: source, description: "1 track: \(codec), \(groups.count) pictures at \(fps) fps", live: nil,
            play: play)
    }
}
