import ArgumentParser
import Foundation
import H26x
import MP4
import PacketCapture
import RTP
import RTPDumpCore
import RTSP
import RTSPClient
import RTSPServer
import SDP
import SRTP
import WebRTCServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract:
            "Serve INPUT over RTSP: a capture at the pace it was captured, or an rtsp:// URL relayed to any number of "
            + "clients (one connection to the camera).",
        discussion:
            "INPUT may also be an Annex B file (.h264, .264, .h265, .265, .hevc): its pictures at --fps; or an MP4 "
            + "recording (.mp4), served on demand until stopped: each client plays it from where it asks (Range "
            + "npt= or clock=, from the keyframe at or before it) at its Scale; or a directory of them, each "
            + "NAME.mp4 at PATH/NAME. "
            + "Here --port is the RTSP port to listen on (default 8554; 0 takes a free one), not a filter. The URL "
            + "served is printed on stdout once the server listens. A capture's video (H.264, H.265) and the "
            + "audio its SDP describes (G.711, L16, G.722, G.726, AAC, Opus) are served; its playing starts when "
            + "the first client plays, and the server ends with the capture unless --loop. Clients use TCP "
            + "interleaved or UDP unicast, and multicast with --multicast GROUP:PORT. With --http-port, browsers "
            + "play it too (WebRTC, WHEP at http://HOST:H/PATH/whep; the page http://HOST:H/PATH/ plays it): its URL "
            + "is the second line printed.")

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
            "With an rtsp:// URL: viewers talk to the camera (two-way audio). The camera's ONVIF backchannel is set "
                + "up; an RTSP viewer that asks for it (Require: www.onvif.org/ver20/backchannel, as rtpdump talk "
                + "does) sends on it, and with --http-port a browser whose page is opened with ?talk sends its "
                + "microphone; one viewer at a time."))
    var talk = false

    @Option(
        help: ArgumentHelp(
            "Send to this IPv4 multicast group (ADDRESS:PORT, an even port: track n on PORT+2n) for the clients that "
                + "ask for multicast, each packet once for all of them.", valueName: "group"))
    var multicast: String?

    @Option(
        help: ArgumentHelp(
            "The IPv4 address of the interface --multicast goes out of (127.0.0.1 keeps it on this host; default: "
                + "the system's route)."))
    var multicastInterface: String?

    @Option(help: "How many routers --multicast may cross (default 1: the local network).")
    var multicastTTL: UInt8 = 1

    @Option(help: "An Annex B file's picture rate (it carries no timestamps; default 25).")
    var fps: Double = 25

    @Option(help: "Serve RTSPS (rtsps:// URLs, TLS on the same port) with this certificate chain, a PEM file.")
    var tlsCert: String?

    @Option(help: "The PEM private key of --tls-cert.")
    var tlsKey: String?

    func validate() throws {
        if (serveUser == nil) != (servePassword == nil) {
            throw ValidationError("--serve-user and --serve-password go together")
        }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if loop && options.isURL { throw ValidationError("--loop replays a capture; a relayed URL is live") }
        guard fps > 0 && fps <= 1000 else { throw ValidationError("--fps must be above 0 and at most 1000: \(fps)") }
        if let httpPort, !(0...65535).contains(httpPort) {
            throw ValidationError("--http-port must be 0 to 65535: \(httpPort)")
        }
        if talk && !options.isURL {
            throw ValidationError("--talk sends viewers' voices to a camera: give an rtsp:// URL")
        }
        if let multicast {
            guard MulticastGroup(multicast) != nil else {
                throw ValidationError(
                    "--multicast takes an IPv4 multicast address (224.0.0.0 to 239.255.255.255) and an even port: "
                        + "\(multicast)")
            }
            if tcpOnly { throw ValidationError("--multicast sends UDP: drop --tcp-only") }
        }
        if httpPort != nil && serveSRTP {
            throw ValidationError("--http-port serves WebRTC, which keys its own SRTP: drop --serve-srtp")
        }
    }

    func run() throws {
        let isDirectory = Self.isDirectory(options.input)
        if isDirectory || options.input.lowercased().hasSuffix(".mp4") {
            return try serveRecording(isDirectory: isDirectory)
        }
        let input = ServedInput(options: options, fps: fps, loop: loop, backchannel: talk)
        let opened = try input.open(makeSource)
        let servers = try start(
            opened.source, talkback: try talkback(of: opened.live), describing: opened.description)
        try opened.play()
        try end(opened.source, servers)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// An MP4 recording, or a directory of them (each NAME.mp4 at --path/NAME), served on demand at --path until the
    /// process is stopped: each viewer plays it from where its PLAY's Range asks, at its Scale.
    private func serveRecording(isDirectory: Bool) throws {
        guard !loop, httpPort == nil, !serveSRTP, multicast == nil else {
            throw RTPDumpError(
                "\(options.displayName) is a recording, served on demand to each viewer from where it asks: "
                    + "--loop, --http-port, --serve-srtp and --multicast do not apply to it")
        }
        let server = RTSPServer(configuration: serverConfiguration)
        let mounted: String
        let serving: String
        do {
            if isDirectory {
                mounted = try server.mount(recordingsIn: options.input, at: path)
                serving = "the recordings in \(options.input), each NAME.mp4 at \(mounted == "/" ? "" : mounted)/NAME"
            } else {
                let reader = try MP4FileReader(path: options.input)
                mounted = try server.mount(reader, at: path)
                let tracks = reader.index.tracks.map { "\($0.codec) (\($0.samples.count) samples)" }
                serving = "the recording: \(tracks.joined(separator: ", "))"
            }
        } catch {
            throw RTPDumpError("cannot serve \(options.displayName): \(error.reason)")
        }
        try startAndPrintURL(server, mounted: mounted)
        printError("serving \(serving) until stopped")
        while true { CaptureServing.sleep(until: .now() + .seconds(3600)) }
    }

    /// The source of `formats`, SRTP with a random key when --serve-srtp.
    private func makeSource(_ formats: [MediaFormat]) throws -> MediaSource {
        do {
            return try MediaSource(formats: formats, srtpKey: serveSRTP ? SRTPKey.random() : nil)
        } catch {
            throw RTPDumpError("cannot serve \(options.displayName): \(error)")
        }
    }

    /// With --talk, where viewers' voices go: the relayed camera's backchannel.
    private func talkback(of live: LiveSessionSource?) throws -> Talkback? {
        guard talk, let live else { return nil }
        guard let backchannel = live.session.backchannel else {
            throw RTPDumpError(
                "--talk: \(options.displayName) set up no audio backchannel (it offers none, or in a codec this "
                    + "library does not send): serve it without --talk")
        }
        do {
            let talkback = try Talkback(format: backchannel.format) { backchannel.send($0) }
            printError(
                "talk: viewers' voices go to the camera as "
                    + "\(backchannel.format.encodingName)/\(backchannel.format.clockRate)"
            )
            return talkback
        } catch {
            throw RTPDumpError("--talk: \(error.reason)")
        }
    }

    /// Starts the server with `source` at --path, and says where.
    private func start(
        _ source: MediaSource, talkback: Talkback? = nil, describing tracks: String
    ) throws -> Servers {
        let server = RTSPServer(configuration: serverConfiguration)
        let mounted = server.mount(
            source, at: path, multicast: multicast.flatMap(MulticastGroup.init), talkback: talkback)
        let printedHost = try startAndPrintURL(server, mounted: mounted)
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

    /// Starts `server` and prints the URL of `mounted` on it (the first line of stdout, what scripts read); returns
    /// the host as it printed it.
    @discardableResult
    private func startAndPrintURL(_ server: RTSPServer, mounted: String) throws -> String {
        try naming("rtsp server on \(bind):\(options.port ?? 8554)") { try waitFor { try await server.start() } }
        let host = bind == "0.0.0.0" || bind == "::" ? "127.0.0.1" : bind
        let printedHost = host.contains(":" as Character) ? "[\(host)]" : host
        lineBufferStandardOutput()
        print("\(tlsCert == nil ? "rtsp" : "rtsps")://\(printedHost):\(server.port ?? 0)\(mounted)")
        return printedHost
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
        configuration.multicastInterface = multicastInterface
        configuration.multicastTTL = multicastTTL
        if let tlsCert, let tlsKey {
            configuration.tls = RTSPServer.Configuration.TLS(certificateFile: tlsCert, privateKeyFile: tlsKey)
        }
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
