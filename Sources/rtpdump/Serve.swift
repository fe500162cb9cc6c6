import ArgumentParser
import Foundation
import H26x
import PacketCapture
import RTP
import RTPDumpCore
import RTSP
import RTSPClient
import RTSPServer
import SDP
import SRTP
import WebRTCServer

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract:
            "Serve INPUT over RTSP: a capture at the pace it was captured, or an rtsp:// URL relayed to any number of "
            + "clients (one connection to the camera).",
        discussion:
            "INPUT may also be an Annex B file (.h264, .264, .h265, .265, .hevc): its pictures at --fps. "
            + "Here --port is the RTSP port to listen on (default 8554; 0 takes a free one), not a filter. The URL "
            + "served is printed on stdout once the server listens. A capture's video (H.264, H.265) and the "
            + "audio its SDP describes (G.711, L16, G.722, G.726, AAC, Opus) are served; its playing starts when "
            + "the first client plays, and the server ends with the capture unless --loop. Clients use TCP "
            + "interleaved or UDP unicast. With --http-port, browsers play it too (WebRTC, WHEP at "
            + "http://HOST:H/PATH/whep; the page http://HOST:H/PATH/ plays it): its URL is the second line printed.")

    @OptionGroup var options: InputOptions

    @Option(help: "The path the stream is served at (default /stream).")
    var path = "/stream"

    @Flag(help: "Play the capture again from its start each time it ends, for ever.")
    var loop = false

    @Option(help: "The address to listen on (default 0.0.0.0, every IPv4 interface; :: for IPv6).")
    var bind = "0.0.0.0"

    @Option(help: "Serve only clients that give this user name (with --serve-password; Digest authentication).")
    var serveUser: String?

    @Option(help: "The password --serve-user must give.")
    var servePassword: String?

    @Flag(help: "Serve over TCP interleaved only (answer UDP SETUPs with 461).")
    var tcpOnly = false

    @Flag(
        help: ArgumentHelp(
            "Send SRTP (RTP/SAVP, AES_CM_128_HMAC_SHA1_80) with a random key announced in the session description "
                + "(a=crypto): anyone who reads the DESCRIBE answer has the key."))
    var serveSRTP = false

    @Option(help: "Serve WebRTC viewers too: WHEP and a player page on this HTTP port (0 takes a free one).")
    var httpPort: Int?

    @Option(help: "The UDP port WebRTC viewers' media and checks share (default: any free one).")
    var webrtcPort: Int = 0

    @Flag(
        help: ArgumentHelp(
            "With --http-port and an rtsp:// URL: browsers talk to the camera (two-way audio). The camera's ONVIF "
                + "backchannel is set up, and a viewer whose page is opened with ?talk sends its microphone to it, "
                + "one viewer at a time."))
    var talk = false

    @Option(help: "An Annex B file's picture rate (it carries no timestamps; default 25).")
    var fps: Double = 25

    func validate() throws {
        if (serveUser == nil) != (servePassword == nil) {
            throw ValidationError("--serve-user and --serve-password go together")
        }
        if loop && options.isURL { throw ValidationError("--loop replays a capture; a relayed URL is live") }
        guard fps > 0 && fps <= 1000 else { throw ValidationError("--fps must be above 0 and at most 1000: \(fps)") }
        if let httpPort, !(0...65535).contains(httpPort) {
            throw ValidationError("--http-port must be 0 to 65535: \(httpPort)")
        }
        if talk && (httpPort == nil || !options.isURL) {
            throw ValidationError("--talk sends browsers' voices to a camera: give an rtsp:// URL and --http-port")
        }
        if httpPort != nil && serveSRTP {
            throw ValidationError("--http-port serves WebRTC, which keys its own SRTP: drop --serve-srtp")
        }
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

    func run() throws {
        if let codec = annexBCodec { return try serveAnnexB(codec: codec) }
        let (datagrams, session) = try options.openSource(media: [.video, .audio], backchannel: talk)
        var filter = options.filter
        filter.port = nil
        let formats = try options.sdpFormats(session: session)
        let followsFlows = session != nil
        var streams: ServedStreams
        if options.isURL {
            // Not the camera's backchannel (--talk): its a=sendonly section is what the client sends on.
            let described =
                try options.sdpDescription(session: session)?.media.filter {
                    !$0.attributes.contains { $0.name.lowercased() == "sendonly" }
                }.compactMap(\.mediaFormat) ?? []
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
        let source = try makeSource(streams.tracks.map(\.format))
        let server = try start(
            source, talkback: try talkback(of: datagrams),
            describing:
                "\(streams.tracks.count) track(s): \(streams.tracks.map { $0.format.encodingName }.joined(separator: ", "))"
        )
        if options.isURL {
            var live = datagrams
            try CaptureServing.push(&live, streams: &streams, into: source, paced: false)
        } else {
            waitFor { await source.waitForSubscriber() }
            // Read again from its start for each playing: the survey read the first opening to its end.
            repeat {
                var capture = try CaptureInput.openWithSession(options.input).source
                var replay = streams.replaying(formats: formats, filter: filter, followsFlows: followsFlows)
                try CaptureServing.push(&capture, streams: &replay, into: source, paced: true)
            } while loop
        }
        try end(source, server)
    }

    /// An Annex B file: its access units at --fps, announced with the parameter sets of its first keyframe.
    private func serveAnnexB(codec: VideoCodec) throws {
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
        let source = try makeSource([.video(VideoFormat(parameterSets: sets))])
        let server = try start(source, describing: "1 track: \(codec), \(groups.count) pictures at \(fps) fps")
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
        try end(source, server)
    }

    /// The source of `formats`, SRTP with a random key when --serve-srtp.
    private func makeSource(_ formats: [MediaFormat]) throws -> MediaSource {
        do {
            return try MediaSource(formats: formats, srtpKey: serveSRTP ? SRTPKey.random() : nil)
        } catch {
            throw RTPDumpError("cannot serve \(options.displayName): \(error)")
        }
    }

    /// With --talk, where browsers' voices go: the relayed camera's backchannel.
    private func talkback(of input: any ReceivedItemSource) throws -> WebRTCTalkback? {
        guard talk, let live = input as? LiveSessionSource else { return nil }
        guard let backchannel = live.session.backchannel else {
            throw RTPDumpError(
                "--talk: \(options.displayName) set up no audio backchannel (it offers none, or in a codec this "
                    + "library does not send): serve it without --talk")
        }
        do {
            let talkback = try WebRTCTalkback(format: backchannel.format) { backchannel.send($0) }
            printError(
                "talk: browsers' voices go to the camera as \(backchannel.format.encodingName)/\(backchannel.format.clockRate)"
            )
            return talkback
        } catch {
            throw RTPDumpError("--talk: \(error.reason)")
        }
    }

    /// Starts the server with `source` at --path, and says where.
    private func start(
        _ source: MediaSource, talkback: WebRTCTalkback? = nil, describing tracks: String
    ) throws -> Servers {
        let server = RTSPServer(configuration: serverConfiguration)
        let mounted = server.mount(source, at: path)
        try naming("rtsp server on \(bind):\(options.port ?? 8554)") { try waitFor { try await server.start() } }
        let host = bind == "0.0.0.0" || bind == "::" ? "127.0.0.1" : bind
        let printedHost = host.contains(":" as Character) ? "[\(host)]" : host
        lineBufferStandardOutput()
        print("rtsp://\(printedHost):\(server.port ?? 0)\(mounted)")
        var webRTC: WebRTCServer?
        if let httpPort {
            let browsers = try WebRTCServer(configuration: .init(httpPort: httpPort, udpPort: webrtcPort, host: bind))
            browsers.mount(source, at: path, talkback: talkback)
            try naming("WebRTC server on \(bind):\(httpPort)") { try waitFor { try await browsers.start() } }
            print("http://\(printedHost):\(browsers.httpPort ?? 0)\(mounted == "/" ? "" : mounted)/")
            webRTC = browsers
        }
        printError("serving \(tracks)")
        return Servers(rtsp: server, webRTC: webRTC)
    }

    /// What serves: RTSP always, WebRTC with --http-port.
    struct Servers {
        let rtsp: RTSPServer
        let webRTC: WebRTCServer?
    }

    /// Ends the source (the players get a BYE and tear down) and, once they have left, the server. A player has
    /// left when its RTSP session has ended, not when it stopped taking media: gst-launch's rtspsrc pauses, then
    /// tears down. One that stays has as long as RTSP gives it, its session's timeout (60 s), not a deadline of
    /// ours: a player still decoding on a busy machine would find the server gone when it tears down, and fail.
    private func end(_ source: MediaSource, _ servers: Servers) throws {
        source.finish()
        let deadline = ArrivalTime.now() + serverConfiguration.sessionTimeout
        func playersLeft() -> Bool { source.subscriberCount == 0 && servers.rtsp.sessionCount == 0 }
        while !playersLeft() && ArrivalTime.now() < deadline {
            CaptureServing.sleep(until: .now() + .milliseconds(50))
        }
        waitFor { await servers.rtsp.stop() }
        if let webRTC = servers.webRTC { waitFor { await webRTC.stop() } }
        try exitIfInterrupted()
    }

    private var serverConfiguration: RTSPServer.Configuration {
        var configuration = RTSPServer.Configuration(host: bind, port: Int(options.port ?? 8554))
        configuration.servesUDP = !tcpOnly
        if let serveUser, let servePassword {
            configuration.authentication = ServerAuthentication(users: [
                Credentials(user: serveUser, password: servePassword)
            ])
        }
        return configuration
    }
}

/// ``waitFor(_:)`` for work that cannot fail.
func waitFor(_ body: @escaping @Sendable () async -> Void) {
    try? RTPDumpCore.waitFor { await body() }
}
