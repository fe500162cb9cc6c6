import Audio
import MediaPipeline
import RTSPCapture
import RTSPClient
import ArgumentParser
import FFmpegDecoding
import Foundation
import H26x
import SDP
import SRTP
import PacketCapture
import RTP
import RTPDumpCore
import RTSP
import VideoDecoding

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@main
struct RTPDump: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rtpdump",
        abstract: "Inspect RTP streams in capture files (pcap, pcapng) or played from an RTSP server (rtsp://).",
        discussion:
            "Machine-readable output goes to stdout, diagnostics to stderr; the exit status is non-zero on failure.",
        subcommands: [
            Streams.self, Packets.self, NALs.self, Frames.self, Extract.self, Decode.self, Record.self, Serve.self,
            Publish.self, Talk.self, Snapshot.self, Health.self,
        ]
    )

    /// Parses the command, starts `--metrics-port`'s endpoint when asked (before the command makes its server,
    /// session or recorder, which publish to the metrics system as it is then), and runs it.
    static func main() {
        do {
            var command = try parseAsRoot()
            if let reading = command as? any ReadsInput, let port = reading.options.metricsPort {
                guard reading.options.isURL || command is Serve || command is Record else {
                    throw ValidationError(
                        "--metrics-port is for what runs until stopped: serve, record, or an rtsp:// URL")
                }
                let bound = try MetricsEndpoint.start(host: reading.options.metricsBind, port: port)
                printError("metrics: http://\(reading.options.metricsBind):\(bound)/metrics")
            }
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}

/// A subcommand that reads an INPUT (every one).
protocol ReadsInput {
    var options: InputOptions { get }
}

/// Options every subcommand shares.
struct InputOptions: ParsableArguments {
    @Argument(help: "A capture file (pcap or pcapng), or an RTSP URL (rtsp://[user:password@]host[:port]/path).")
    var input: String

    @Option(
        help: ArgumentHelp(
            "With an RTSP URL: how RTP travels: tcp (interleaved), udp, auto (UDP, then TCP if nothing arrives), "
                + "multicast, or http (RTSP tunnelled through HTTP, on the URL's port)."))
    var transport: RTSPSessionOptions.Transport = .tcp

    @Option(help: "With an RTSP URL: stop after this many seconds (default: until the server ends the stream).")
    var duration: Double?

    @Flag(
        help: ArgumentHelp(
            "With an RTSP URL: when the session breaks (the connection drops, the server restarts, the media stops), "
                + "play again and go on; a camera down at the start is waited for too.",
            discussion:
                "Attempts wait 0.5 s, then twice as long each time up to --reconnect-max-delay, with 20 % jitter; a "
                + "refused password (401) or a missing stream (404) ends the session. Each break is told on stderr."))
    var reconnect = false

    @Option(help: "With --reconnect: the longest wait between attempts, in seconds (default 10).")
    var reconnectMaxDelay: Double = 10

    @Option(
        help: ArgumentHelp(
            "With an RTSP URL of a recording (an NVR): where to start, npt=SECONDS-[END] or "
                + "clock=YYYYMMDDThhmmss[.fff]Z-[END] (UTC)."))
    var range: String?

    @Option(help: "With an RTSP URL of a recording: the playback speed (Scale: 2 fast forward, -1 backwards).")
    var scale: Double?

    @Option(help: "With an RTSP URL of a recording: the delivery speed (Speed).")
    var speed: Double?

    @Flag(
        help:
            "With an RTSP URL of a recording: ask the server not to pace the stream (Rate-Control: no), as fast as it can."
    )
    var noRateControl = false

    @Flag(
        help: ArgumentHelp(
            "With an RTSP URL: an ONVIF replay (Require: onvif-replay); units carry the time they were recorded "
                + "(the RTP header extension 0xABAC)."))
    var onvifReplay = false

    @Option(help: "With an RTSP URL: the user name (else the one in the URL).")
    var user: String?

    @Option(
        help: ArgumentHelp(
            "With an RTSP URL: the password (else the one in the URL, else the RTPDUMP_PASSWORD environment variable).",
            discussion:
                "It is never printed; prefer RTPDUMP_PASSWORD, which other users cannot see in the process list."))
    var password: String?

    @Option(
        name: .customLong("tls-trust"),
        help: "With rtsps://: a PEM certificate to trust (the camera's CA or its self-signed certificate); repeatable.")
    var tlsTrust: [String] = []

    @Flag(
        name: .customLong("tls-no-verify"),
        help:
            "With rtsps://: accept any certificate (a lab camera only: anyone in between can read and change the stream)."
    )
    var tlsNoVerify = false

    @Option(
        name: .customLong("srtp-key"),
        help: "Unprotect SRTP/SRTCP with this base64 key (master key then salt, as in a=crypto inline:).")
    var srtpKey: String?

    @Option(
        name: .customLong("srtp-suite"),
        help:
            "With --srtp-key: AES_CM_128_HMAC_SHA1_80 (default), AES_CM_128_HMAC_SHA1_32, AEAD_AES_128_GCM, AEAD_AES_256_GCM."
    )
    var srtpSuite: String = SRTPSuite.aesCM128HMACSHA1_80.rawValue

    @Option(help: "Only RTP on this UDP port (source or destination).")
    var port: UInt16?

    @Option(help: "Only this SSRC (decimal or 0x-prefixed hex).", transform: parseSSRC)
    var ssrc: UInt32?

    @Option(name: .customLong("payload-type"), help: "Only this RTP payload type.")
    var payloadType: UInt8?

    @Option(help: "The video codec: h264, h265 or jpeg (default: from --sdp, else sniffed from the payloads).")
    var codec: VideoCodec?

    @Option(help: "A session description (SDP file) for the stream: codec, clock rate, parameter sets, packetization.")
    var sdp: String?

    @Option(
        name: .customLong("g726-packing"),
        help: ArgumentHelp(
            "G.726's bit order, where the sender's name for it is wrong: rfc3551 or aal2 (GStreamer's rtpg726pay, by "
                + "default, and cameras built on it send AAL2's order named G726-*)."))
    var g726Packing: G726Packing?

    @Option(
        help: ArgumentHelp(
            "Serve the metrics (Prometheus text: sessions, viewers, recordings) at http://HOST:PORT/metrics while the "
                + "command runs (serve, record, or an rtsp:// URL); 0 takes a free port, printed on stderr."))
    var metricsPort: Int?

    @Option(help: "The address --metrics-port listens on (default 127.0.0.1; 0.0.0.0 for every interface).")
    var metricsBind = "127.0.0.1"

    /// The longest `--duration`: a year (a bound, so that no value overflows a clock).
    static let maxDuration = 31_536_000.0

    func validate() throws {
        if let duration, !(duration > 0 && duration <= Self.maxDuration) {
            throw ValidationError(
                "--duration must be a number of seconds above 0 and at most \(Int(Self.maxDuration)) (a year): \(duration)"
            )
        }
        _ = try playback
        if let metricsPort, !(0...65535).contains(metricsPort) {
            throw ValidationError("--metrics-port must be a TCP port, 0 to 65535: \(metricsPort)")
        }
        for (name, value) in [("--scale", scale), ("--speed", speed)] {
            if let value, !(value.isFinite && value != 0 && abs(value) <= 1000) {
                throw ValidationError("\(name) must be a number from -1000 to 1000, not 0: \(value)")
            }
        }
        if !(reconnectMaxDelay >= 0.1 && reconnectMaxDelay <= 3600) {
            throw ValidationError("--reconnect-max-delay must be from 0.1 to 3600 seconds: \(reconnectMaxDelay)")
        }
        if !isURL, Self.looksLikeAURL(input), !FileManager.default.fileExists(atPath: input) {
            throw ValidationError(
                "\(displayName) is neither a capture file nor an RTSP URL; a URL starts with rtsp:// or rtsps://,"
                    + " like rtsp://user@camera/stream")
        }
    }

    /// A scheme (`rtsp:`, `rtps:`, `admin:`...) before an `@`: a mistyped URL, whose password must not be
    /// printed.
    static func looksLikeAURL(_ text: String) -> Bool { userInfoRange(text) != nil }

    /// Where a URL-shaped text keeps its user information: after the scheme's colon and slashes, up to the
    /// last `@` (a password may hold `/` or `@`; hiding too much is the safe side).
    static func userInfoRange(_ text: String) -> Range<String.Index>? {
        guard let colon = text.firstIndex(of: ":"), colon > text.startIndex,
            text[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
            let at = text.lastIndex(of: "@"), at > colon
        else { return nil }
        var start = text.index(after: colon)
        while start < at, text[start] == "/" { start = text.index(after: start) }
        return start..<at
    }

    /// The input as datagrams: a capture, or a capture of an RTSP session with the RTP interleaved in its
    /// connection included, or a live session that sets up the tracks of `media` (what the command reads).
    /// Also what the session's RTSP exchange says, when there is one.
    func openSource(media: Set<MediaKind> = [.video, .audio], backchannel: Bool = false) throws
        -> (source: any ReceivedItemSource, session: RTSPSessionInfo?)
    {
        if isURL {
            guard srtpKey == nil else {
                throw ValidationError("--srtp-key unprotects a capture; a live session's keys come from its SDP")
            }
            var options = sessionOptions
            options.mediaKinds = media
            options.backchannel = backchannel
            let live = try naming(displayName) {
                try LiveSessionSource.open(
                    url: input, options: options, duration: duration.map { .milliseconds(Int64($0 * 1000)) })
            }
            Interruption.tearDownOnSignal(live.session)
            lineBufferStandardOutput()
            return (live, live.info)
        }
        let (source, session) = try CaptureInput.openWithSession(input)
        guard let srtpKey else { return (source, session) }
        guard let suite = SRTPSuite(name: srtpSuite) else {
            throw ValidationError(
                "--srtp-suite must be one of \(SRTPSuite.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        do {
            return (try SRTPDatagrams(source, key: SRTPKey(suite: suite, base64: srtpKey)), session)
        } catch {
            throw RTPDumpError("--srtp-key: \(error)")
        }
    }

    /// The video format from --sdp, else from the DESCRIBE answer in a session capture.
    func sdpFormat(session: RTSPSessionInfo? = nil) throws -> VideoFormat? {
        guard let sdp else { return session?.videoFormat }
        guard let text = try? String(contentsOfFile: sdp, encoding: .utf8) else {
            throw RTPDumpError("cannot read the SDP file \(sdp)")
        }
        let description: SessionDescription
        do { description = try SessionDescription(text) } catch { throw RTPDumpError("\(sdp): \(error)") }
        guard let format = description.videoFormat(payloadType: payloadType) else {
            throw RTPDumpError(
                "\(sdp) describes no H.264, H.265 or JPEG stream\(payloadType.map { " with payload type \($0)" } ?? "")"
            )
        }
        return format
    }

    /// The audio format from --sdp (its first audio section, or the one of --payload-type), else from the
    /// DESCRIBE answer in a session capture or a live session; nil when neither describes audio.
    /// With `container`, the first whose codec that container takes, if one does (a camera's AAC track for
    /// `-o out.aac` where G.711 comes first).
    func sdpAudioFormat(session: RTSPSessionInfo? = nil, for container: AudioContainer? = nil) throws -> AudioFormat? {
        let formats =
            try sdpDescription(session: session)?.media.compactMap { media -> AudioFormat? in
                guard case .audio(var format)? = media.mediaFormat else { return nil }
                if format.codec == .g726, let g726Packing { format.packing = g726Packing }
                return payloadType.map { $0 == format.payloadType } ?? true ? format : nil
            } ?? []
        return formats.first { AudioContainer.for($0.codec).container == container } ?? formats.first
    }

    /// The first data section's format (ONVIF metadata, or a payload handed on raw) of --sdp (or the one of
    /// --payload-type), else of the session's description; nil when neither has one.
    func sdpDataFormat(session: RTSPSessionInfo? = nil, metadataOnly: Bool = false) throws -> DataFormat? {
        try sdpDescription(session: session)?.media.lazy.compactMap { media -> DataFormat? in
            guard case .data(let format)? = media.mediaFormat else { return nil }
            guard payloadType.map({ $0 == format.payloadType }) ?? true else { return nil }
            return !metadataOnly || format.content != .raw ? format : nil
        }.first
    }

    /// ``sdpAudioFormat(session:for:)``, or an error that says what to give when there is none.
    func requireAudioFormat(session: RTSPSessionInfo?, for container: AudioContainer? = nil) throws -> AudioFormat {
        guard let format = try sdpAudioFormat(session: session, for: container) else {
            throw RTPDumpError(
                "\(sdp ?? displayName) describes no audio this tool takes apart (PCMU, PCMA, L16, MPEG4-GENERIC, "
                    + "MP4A-LATM, opus, G722, G726-16 to -40): give the stream's SDP with --sdp")
        }
        return format
    }

    /// The session description of --sdp, else of the DESCRIBE answer in a session capture or a live session.
    func sdpDescription(session: RTSPSessionInfo? = nil) throws -> SessionDescription? {
        guard let sdp else { return session?.description }
        guard let text = try? String(contentsOfFile: sdp, encoding: .utf8) else {
            throw RTPDumpError("cannot read the SDP file \(sdp)")
        }
        do { return try SessionDescription(text) } catch { throw RTPDumpError("\(sdp): \(error)") }
    }

    /// The formats the SDP (--sdp, or the session's) describes, by payload type (the first section's where
    /// two use one).
    func sdpFormats(session: RTSPSessionInfo? = nil) throws -> [UInt8: MediaFormat] {
        let formats = try sdpDescription(session: session)?.media.compactMap(\.mediaFormat) ?? []
        return Dictionary(formats.map { ($0.payloadType, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The depacketizer an SDP video format calls for, if there is one. Parameter sets in the SDP that are
    /// not valid are a warning: the stream's own serve instead.
    func template(for format: VideoFormat?) -> Depacketizer? {
        guard let format else { return nil }
        return Depacketizer(format: .video(format)) { problem in
            printError("warning: \(sdp ?? displayName): \(problem)")
        }
    }

    var isURL: Bool {
        let lower = input.lowercased()
        return lower.hasPrefix("rtsp://") || lower.hasPrefix("rtsps://")
    }

    /// The input as it may be printed: an URL loses its credentials, and so does a mistyped one.
    var displayName: String {
        if isURL { return (try? RTSPURL(input))?.description ?? "the RTSP URL" }
        guard let userInfo = Self.userInfoRange(input) else { return input }
        return input[..<userInfo.lowerBound] + "…" + input[userInfo.upperBound...]
    }

    /// What PLAY asks of a recording, when any of --range, --scale, --speed, --no-rate-control or
    /// --onvif-replay is given.
    var playback: PlaybackRequest? {
        get throws {
            guard range != nil || scale != nil || speed != nil || noRateControl || onvifReplay else { return nil }
            do {
                return PlaybackRequest(
                    range: try range.map { try PlaybackRequest.Range(parsing: $0) }, scale: scale, speed: speed,
                    rateControl: !noRateControl, onvifReplay: onvifReplay)
            } catch {
                throw ValidationError("--range: \(error)")
            }
        }
    }

    var sessionOptions: RTSPSessionOptions {
        var options = RTSPSessionOptions(transport: transport)
        options.playback = try? playback
        if reconnect {
            // A camera down when rtpdump starts is waited for as one that goes away later is.
            options.reconnection = .init(
                maxDelay: .milliseconds(Int64(reconnectMaxDelay * 1000)), includesFirstConnect: true)
        }
        options.logger = DiagnosticLog.logger
        // One session a process: its URL's path names it (never the host, nor a credential).
        if metricsPort != nil { options.metricsName = (try? RTSPURL(input))?.path ?? "/" }
        options.tls = RTSPSessionOptions.TLS(trustedCertificateFiles: tlsTrust, verifiesCertificate: !tlsNoVerify)
        let fromURL = (try? RTSPURL(input))?.credentials
        let password = password ?? ProcessInfo.processInfo.environment["RTPDUMP_PASSWORD"] ?? fromURL?.password
        if let user = user ?? fromURL?.user {
            options.credentials = Credentials(user: user, password: password ?? "")
        }
        return options
    }

    var filter: StreamFilter { StreamFilter(port: port, ssrc: ssrc, payloadType: payloadType) }

    /// The filter, narrowed to the SDP's payload type when one was given.
    func filter(for format: VideoFormat?) -> StreamFilter {
        StreamFilter(port: port, ssrc: ssrc, payloadType: payloadType ?? format?.payloadType)
    }
}

func parseSSRC(_ text: String) throws -> UInt32 {
    let value = text.lowercased().hasPrefix("0x") ? UInt32(text.dropFirst(2), radix: 16) : UInt32(text)
    guard let value else {
        throw ValidationError("--ssrc must be a 32-bit number, decimal or 0x-prefixed hex: \(text)")
    }
    return value
}

/// Writes a diagnostic line to stderr (file descriptor 2), its control characters escaped: diagnostics
/// quote what servers and captures hold.
func printError(_ line: String) {
    var text = line.escapingControlCharacters + "\n"
    text.withUTF8 { buffer in _ = write(2, buffer.baseAddress, buffer.count) }
}

/// Runs `body`; an error that does not already speak to the user (an `RTPDumpError`) gets the input's
/// name in front of it.
func naming<T>(_ input: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw naming(input, error)
    }
}

/// `error` with the input's name in front of it, unless it already speaks to the user (an `RTPDumpError`) or
/// begins with that name (a URL that does not parse is "the RTSP URL", as its error says).
func naming(_ input: String, _ error: any Error) -> any Error {
    if error is RTPDumpError { return error }
    let text = "\(error)"
    return RTPDumpError(text.hasPrefix(input) ? text : "\(input): \(text)")
}

/// Reports what the capture reader skipped.
func finish(_ warnings: CaptureWarnings) {
    for line in CaptureInput.warningLines(warnings) { printError(line) }
}

extension VideoCodec: ExpressibleByArgument {}
extension G726Packing: ExpressibleByArgument {}
extension RTSPSessionOptions.Transport: ExpressibleByArgument {}

/// Streams whose codec was sniffed and whose payload type is static (PCMU, PCMA...), on stderr: they are
/// not H.264 or H.265, and were left out rather than listed as NAL units.
/// Throws, with their reasons, when video streams were found but every picture of them was refused: what the
/// user needs to hear rather than that no stream was found.
func refusedStreams(_ streams: [(stream: StreamKey, reason: String)], in input: String) throws {
    guard !streams.isEmpty else { return }
    let reasons = streams.map { "stream ssrc=\(hex32($0.stream.ssrc)): \($0.reason)" }
    throw RTPDumpError("no picture came out of \(input): \(reasons.joined(separator: "; "))")
}

/// The codec of the video a command read; without one, why: the input's failure, the streams whose pictures were all
/// refused, or that there was no video.
func requireVideo(
    _ codec: VideoCodec?, inputFailure: (any Error)?, refused: [(stream: StreamKey, reason: String)], in input: String
) throws -> VideoCodec {
    if let codec { return codec }
    if let inputFailure { throw naming(input, inputFailure) }
    try refusedStreams(refused, in: input)
    throw RTPDumpError("no H.264, H.265 or JPEG stream found in \(input)")
}

func noteNotVideo(_ streams: [(stream: StreamKey, reason: String)]) {
    for (stream, reason) in streams {
        printError(
            "note: stream ssrc=\(hex32(stream.ssrc)) is left out: \(reason) (--codec takes it as video all the same)")
    }
}
extension Streams: ReadsInput {}
extension Publish: ReadsInput {}
extension NALs: ReadsInput {}
extension Frames: ReadsInput {}
extension Decode: ReadsInput {}
extension Talk: ReadsInput {}
extension Packets: ReadsInput {}
extension Record: ReadsInput {}
extension Extract: ReadsInput {}
extension Snapshot: ReadsInput {}
extension Serve: ReadsInput {}
