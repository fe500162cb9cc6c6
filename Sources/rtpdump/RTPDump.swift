import Audio
import MediaPipeline
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
        subcommands: [Streams.self, Packets.self, NALs.self, Frames.self, Extract.self, Decode.self]
    )
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

    @Option(help: "The video codec: h264 or h265 (default: from --sdp, else sniffed from the payloads).")
    var codec: VideoCodec?

    @Option(help: "A session description (SDP file) for the stream: codec, clock rate, parameter sets, packetization.")
    var sdp: String?

    /// The longest `--duration`: a year (a bound, so that no value overflows a clock).
    static let maxDuration = 31_536_000.0

    func validate() throws {
        if let duration, !(duration > 0 && duration <= Self.maxDuration) {
            throw ValidationError(
                "--duration must be a number of seconds above 0 and at most \(Int(Self.maxDuration)) (a year): \(duration)"
            )
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
    func openSource(media: Set<MediaKind> = [.video, .audio]) throws
        -> (source: any DatagramSource, session: RTSPSessionInfo?)
    {
        let (source, session) = try openPlainSource(media: media)
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

    private func openPlainSource(media: Set<MediaKind>) throws
        -> (source: any DatagramSource, session: RTSPSessionInfo?)
    {
        if isURL {
            var options = sessionOptions
            options.mediaKinds = media
            let live = try naming(displayName) {
                try LiveSessionSource.open(
                    url: input, options: options, duration: duration.map { .milliseconds(Int64($0 * 1000)) })
            }
            Interruption.tearDownOnSignal(live.session)
            lineBufferStandardOutput()
            return (live, live.info)
        }
        return try CaptureInput.openWithSession(input)
    }

    /// The video format from --sdp, else from the DESCRIBE answer in a session capture.
    func sdpFormat(session: RTSPSessionInfo? = nil) throws -> VideoFormat? {
        guard let sdp else { return session?.videoFormat }
        guard let text = try? String(contentsOfFile: sdp, encoding: .utf8) else {
            throw RTPDumpError("cannot read the SDP file \(sdp)")
        }
        let description: SessionDescription
        do { description = try SessionDescription(text) } catch { throw RTPDumpError("\(sdp): \(error)") }
        guard let format = SDPVideo.videoFormat(in: description, payloadType: payloadType) else {
            throw RTPDumpError(
                "\(sdp) describes no H.264 or H.265 stream\(payloadType.map { " with payload type \($0)" } ?? "")")
        }
        return format
    }

    /// The audio format from --sdp (its first audio section, or the one of --payload-type), else from the
    /// DESCRIBE answer in a session capture or a live session; nil when neither describes audio.
    /// With `container`, the first whose codec that container takes, if one does (a camera's AAC track for
    /// `-o out.aac` where G.711 comes first).
    func sdpAudioFormat(session: RTSPSessionInfo? = nil, for container: AudioContainer? = nil) throws -> AudioFormat? {
        let formats = try sdpDescription(session: session)?.media.compactMap { media -> AudioFormat? in
            guard case .audio(let format)? = media.mediaFormat else { return nil }
            return payloadType.map { $0 == format.payloadType } ?? true ? format : nil
        } ?? []
        return formats.first { AudioContainer.for($0.codec).container == container } ?? formats.first
    }

    /// ``sdpAudioFormat(session:for:)``, or an error that says what to give when there is none.
    func requireAudioFormat(session: RTSPSessionInfo?, for container: AudioContainer? = nil) throws -> AudioFormat {
        guard let format = try sdpAudioFormat(session: session, for: container) else {
            throw RTPDumpError(
                "\(sdp ?? displayName) describes no audio this tool takes apart (PCMU, PCMA, L16, MPEG4-GENERIC, "
                    + "MP4A-LATM, opus): give the stream's SDP with --sdp")
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
    func template(for format: VideoFormat?) -> VideoDepacketizer? {
        guard let format else { return nil }
        return SDPVideo.depacketizer(for: format) { problem in
            printError(
                "warning: \(sdp ?? displayName): \(problem); left out, the stream's in-band parameter sets are used")
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

    var sessionOptions: RTSPSessionOptions {
        var options = RTSPSessionOptions(transport: transport)
        if reconnect {
            // A camera down when rtpdump starts is waited for as one that goes away later is.
            options.reconnection = .init(
                maxDelay: .milliseconds(Int64(reconnectMaxDelay * 1000)), includesFirstConnect: true)
        }
        options.logger = DiagnosticLog.logger
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

/// `error` with the input's name in front of it, unless it already speaks to the user (an `RTPDumpError`).
func naming(_ input: String, _ error: any Error) -> any Error {
    error is RTPDumpError ? error : RTPDumpError("\(input): \(error)")
}

/// Reports what the capture reader skipped.
func finish(_ warnings: CaptureWarnings) {
    for line in CaptureInput.warningLines(warnings) { printError(line) }
}

struct Streams: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "streams",
        abstract:
            "One row per RTP stream: SSRC, payload type, addresses, packets, lost, duplicates, reordered, jitter, codec."
    )

    @OptionGroup var options: InputOptions

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    @Option(
        name: .customLong("clock-rate"),
        help: "Clock rate in Hz for jitter (default: by payload type; 90000 for dynamic types).")
    var clockRate: Int?

    func validate() throws {
        if let clockRate, !(1000...10_000_000).contains(clockRate) {
            throw ValidationError(
                "--clock-rate must be from 1000 to 10000000 Hz (RTP clocks run at 8000 Hz for G.711, 90000 for video): \(clockRate)"
            )
        }
    }

    func run() throws {
        var (source, session) = try options.openSource()
        // The SDP names each stream's codec and clock; an --sdp with video narrows to its payload type.
        let formats = try naming(options.displayName) { try options.sdpFormats(session: session) }
        let video = options.sdp == nil ? nil : try? options.sdpFormat(session: session)
        // RTP by negotiation (a session) or by the user's word (--port, --sdp) needs no probation.
        var analyzer = StreamAnalyzer(
            filter: options.filter(for: video), clockRate: clockRate,
            probation: session == nil && options.port == nil && options.sdp == nil, formats: formats)
        // The table of what was read is printed however the input ends; its failure comes after it.
        let inputFailure = failure { try source.forEachDatagram { analyzer.add($0) } }
        let streams = analyzer.streams
        let srtp = source as? SRTPDatagrams
        print(json ? StreamReport.json(streams, srtp: srtp) : StreamReport.table(streams), terminator: "")
        if let srtp, !json, srtp.totalFailures > 0 {
            printError("SRTP: \(srtp.totalFailures) packets failed authentication and were dropped")
        }
        finish(source.warnings)
        for stream in analyzer.unvalidated {
            printError(
                "note: \(stream.key) looks like RTP (\(stream.statistics.packets) packets) but its sequence numbers"
                    + " were never two in a row (RFC 3550 probation): not listed; name its port with --port to count it"
            )
        }
        if let inputFailure { throw naming(options.displayName, inputFailure) }
        if streams.isEmpty {
            printError("no RTP streams found (try --port to narrow the search, or check the capture)")
        }
        try exitIfInterrupted()
    }
}

struct Packets: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "packets", abstract: "One line per RTP packet.")

    @OptionGroup var options: InputOptions

    @Flag(help: "List packets as a reorder buffer releases them, with LOSS lines for gaps.")
    var ordered = false

    @Option(name: .customLong("reorder-delay-ms"), help: "With --ordered: how long to wait for a missing packet.")
    var reorderDelay: Int = 100

    func validate() throws {
        guard (0...60_000).contains(reorderDelay) else {
            throw ValidationError("--reorder-delay-ms must be from 0 to 60000 (a minute): \(reorderDelay)")
        }
    }

    func run() throws {
        var (capture, _) = try options.openSource()
        let write: (String) -> Void = { print($0) }
        let inputFailure = failure {
            if ordered {
                let configuration = ReorderBuffer.Configuration(maxDelay: .milliseconds(reorderDelay))
                try PacketListing.releaseOrder(
                    &capture, filter: options.filter, configuration: configuration, write: write)
            } else {
                try PacketListing.arrivalOrder(&capture, filter: options.filter, write: write)
            }
        }
        finish(capture.warnings)
        if let inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}

extension VideoCodec: ExpressibleByArgument {}
extension RTSPSessionOptions.Transport: ExpressibleByArgument {}

struct NALs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nals", abstract: "One line per NAL unit and per access unit (H.264, H.265).")

    @OptionGroup var options: InputOptions

    func run() throws {
        var (capture, session) = try options.openSource(media: [.video])
        let format = try options.sdpFormat(session: session)
        var streams = AccessUnitStreams(
            filter: options.filter(for: format), codec: options.codec, template: options.template(for: format),
            senderClocks: capture.senderClocks, followsFlows: session != nil)
        let emit = { (key: StreamKey, unit: AccessUnit) in
            for line in NALListing.lines(key, unit) { print(line) }
        }
        let inputFailure = failure { try capture.forEachDatagram { streams.add($0, emit: emit) } }
        streams.finish(emit: emit)
        finish(capture.warnings)
        noteNotVideo(streams.streamsNotVideo)
        if let inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}

/// Streams whose codec was sniffed and whose payload type is static (PCMU, PCMA...), on stderr: they are
/// not H.264 or H.265, and were left out rather than listed as NAL units.
func noteNotVideo(_ streams: [StreamKey]) {
    for stream in streams {
        printError(
            "note: stream ssrc=\(hex32(stream.ssrc)) has a static payload type (RFC 3551: audio or another codec), "
                + "not H.264 or H.265: left out (--codec decodes it as video all the same)")
    }
}

struct Frames: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames",
        abstract: "One line per audio frame (G.711, L16, AAC, Opus), as the SDP (--sdp, or the session's) describes it.")

    @OptionGroup var options: InputOptions

    func run() throws {
        var (capture, session) = try options.openSource(media: [.audio])
        let format = try options.requireAudioFormat(session: session)
        var streams: AudioFrameStreams
        do {
            streams = try AudioFrameStreams(
                format: format, filter: options.filter, senderClocks: capture.senderClocks, followsFlows: session != nil)
        } catch {
            throw RTPDumpError("\(options.sdp ?? options.displayName): \(error)")
        }
        var frames = 0
        let emit = { (key: StreamKey, frame: AudioFrame) in
            frames += 1
            print(AudioFrameListing.line(key, frame))
        }
        let inputFailure = failure { try capture.forEachDatagram { streams.add($0, emit: emit) } }
        streams.finish(emit: emit)
        finish(capture.warnings)
        if let inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
        // Packets came and none made a frame: the stream is not what the SDP says, and that is no success.
        let malformed = streams.depacketizers.reduce(0) { $0 + $1.1.statistics.malformedPackets }
        if frames == 0 && malformed > 0 {
            throw RTPDumpError(
                "no \(format.codec.encodingName) frame in \(options.displayName): all \(malformed) packets of the stream "
                    + "are malformed as \(format.codec.encodingName); check that the SDP (--sdp, --payload-type) describes it")
        }
    }
}

struct Extract: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract:
            "Write the complete access units of a stream as an Annex B elementary stream (.h264, .h265), or an audio "
            + "stream in a file players open (.aac for AAC, .opus for Opus, .wav for G.711 and L16).")

    @OptionGroup var options: InputOptions

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "The output file: OUT.h264 or OUT.h265 for video; OUT.aac, OUT.opus or OUT.wav for the audio the SDP "
                + "(--sdp, or the session's) describes."))
    var output: String

    func run() throws {
        if let container = AudioContainer(path: output) { return try extractAudio(container) }
        var (capture, session) = try options.openSource(media: [.video])
        let format = try options.sdpFormat(session: session)
        let file = try OutputFile(path: output)
        let summary = try naming(options.displayName) {
            try NALListing.extract(
                &capture, filter: options.filter(for: format), codec: options.codec,
                template: options.template(for: format), followsFlows: session != nil, write: file.write)
        }
        try file.close()
        finish(capture.warnings)
        noteNotVideo(summary.streamsNotVideo)
        guard let codec = summary.codec else {
            if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
            throw RTPDumpError("no H.264 or H.265 stream found in \(options.displayName)")
        }
        let expected = codec == .h264 ? ".h264" : ".h265"
        if !output.hasSuffix(expected) {
            printError("warning: the stream is \(codec) but \(output) does not end in \(expected)")
        }
        printError(
            "\(codec): \(summary.written) access units, \(summary.bytes) bytes written; \(summary.skippedIncomplete) incomplete access units left out"
        )
        if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}

extension Extract {
    /// The first audio stream (or the one of --ssrc) as --sdp (or the session's) describes it, in `container`.
    func extractAudio(_ container: AudioContainer) throws {
        var (capture, session) = try options.openSource(media: [.audio])
        let format = try options.requireAudioFormat(session: session, for: container)
        let file = try OutputFile(path: output)
        let summary = try naming(options.displayName) {
            try AudioExtraction.extract(
                &capture, format: format, container: container, filter: options.filter,
                followsFlows: session != nil, write: file.write, rewriteStart: file.rewriteStart)
        }
        try file.close()
        finish(capture.warnings)
        guard summary.stream != nil else {
            if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
            throw RTPDumpError("no \(format.codec.encodingName) stream found in \(options.displayName)")
        }
        var line = "\(format.codec.encodingName): \(summary.frames) frames, \(summary.bytes) bytes written"
        if summary.silenceSamples > 0 { line += "; \(summary.silenceSamples) samples of silence where frames were lost" }
        if summary.unfilledGaps > 0 { line += "; \(summary.unfilledGaps) gaps too long to fill" }
        if summary.skippedFrames > 0 { line += "; \(summary.skippedFrames) frames too large for the file left out" }
        printError(line)
        if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract:
            "Decode the video (FFmpeg's libavcodec) to I420: a .y4m file and/or one MD5 line per frame; with --audio, "
            + "the audio to 16-bit PCM: a .wav file and/or one MD5 line per decoded frame.")

    @OptionGroup var options: InputOptions

    @Option(name: .shortAndLong, help: "Write the frames to this .y4m file (with --audio: this .wav file).")
    var output: String?

    @Flag(
        help: ArgumentHelp(
            "Print one line per frame: <index> <pts90k> <width>x<height> <md5 of the packed Y, U, V planes>; with "
                + "--audio, <index> <pts> <samples>x<channels> <md5 of the s16le samples>, pts at the track's clock."))
    var md5 = false

    @Flag(help: "Decode the audio the SDP (--sdp, or the session's) describes instead of the video.")
    var audio = false

    @Option(help: "Decoding threads (1: in the calling thread; 0: libavcodec chooses).")
    var threads: Int = 1

    @Option(help: "Scale every frame to WIDTHxHEIGHT (even numbers), as a WebRTC bridge needs.", transform: parseSize)
    var size: FrameSize?

    func validate() throws {
        if audio, let output, !output.lowercased().hasSuffix(".wav") {
            throw ValidationError("with --audio, -o writes a WAV file: name it OUT.wav (\(output))")
        }
        guard FFmpegVideoDecoder.Configuration.threadRange.contains(threads) else {
            let range = FFmpegVideoDecoder.Configuration.threadRange
            throw ValidationError(
                "--threads must be from \(range.lowerBound) (libavcodec chooses) to \(range.upperBound): \(threads)")
        }
    }

    func run() throws {
        if audio { return try decodeAudio() }
        var (capture, session) = try options.openSource(media: [.video])
        let format = try options.sdpFormat(session: session)
        let writer = try output.map { try Y4MWriter(path: $0) }
        var index = 0
        let summary = try naming(options.displayName) {
            try FrameDecoding.decode(
                &capture, filter: options.filter(for: format), codec: options.codec,
                threads: threads, outputSize: size.map { ($0.width, $0.height) },
                template: options.template(for: format), followsFlows: session != nil
            ) {
                frame in
                if md5 { print(FrameDecoding.md5Line(index: index, frame)) }
                try writer?.write(frame)
                index += 1
            }
        }
        finish(capture.warnings)
        noteNotVideo(summary.streamsNotVideo)
        guard let codec = summary.codec else {
            if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
            throw RTPDumpError("no H.264 or H.265 stream found in \(options.displayName)")
        }
        printError(
            "\(codec): \(summary.accessUnits) access units, \(summary.frames) frames (\(summary.damagedFrames) may be damaged),"
                + " \(summary.decodeErrors) decoder errors")
        if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}

extension Decode {
    /// The first audio stream (or the one of --ssrc) decoded to s16 PCM: a WAV file, MD5 lines.
    func decodeAudio() throws {
        var (capture, session) = try options.openSource(media: [.audio])
        let format = try options.requireAudioFormat(session: session)
        let file = try output.map { try OutputFile(path: $0) }
        var layout: (rate: Int, channels: Int)?
        var dataBytes = 0
        var index = 0
        let summary = try naming(options.displayName) {
            try AudioFrameDecoding.decode(
                &capture, format: format, filter: options.filter, followsFlows: session != nil
            ) { pcm in
                if md5 { print(AudioFrameDecoding.md5Line(index: index, pcm)) }
                index += 1
                guard let file else { return }
                if layout == nil {
                    layout = (pcm.sampleRate, pcm.channels)
                    try file.write(WAVHeader.bytes(encoding: .pcm16, sampleRate: pcm.sampleRate, channels: pcm.channels, dataBytes: 0)[...])
                }
                guard layout.map({ $0 == (pcm.sampleRate, pcm.channels) }) ?? false else {
                    throw RTPDumpError(
                        "the decoded audio changed to \(pcm.sampleRate) Hz, \(pcm.channels) channel(s) midway: one WAV "
                            + "file holds one format (--md5 lists every frame)")
                }
                let bytes = AudioFrameDecoding.littleEndianBytes(pcm.int16Interleaved)
                try file.write(bytes[...])
                dataBytes += bytes.count
            }
        }
        if let file, let layout {
            try file.rewriteStart(
                WAVHeader.bytes(encoding: .pcm16, sampleRate: layout.rate, channels: layout.channels, dataBytes: dataBytes))
        }
        try file?.close()
        finish(capture.warnings)
        guard summary.stream != nil else {
            if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
            throw RTPDumpError("no \(format.codec.encodingName) stream found in \(options.displayName)")
        }
        let gaps =
            (summary.silenceSamples > 0 ? ", \(summary.silenceSamples) samples of silence for lost frames" : "")
            + (summary.unfilledGaps > 0 ? ", \(summary.unfilledGaps) gaps too long to fill" : "")
        printError(
            "\(format.codec.encodingName): \(summary.codedFrames) frames, \(summary.pcmFrames) decoded "
                + "(\(summary.samples) samples)\(gaps), \(summary.decodeErrors) decoder errors")
        if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}

struct FrameSize {
    let width: Int
    let height: Int
}

func parseSize(_ text: String) throws -> FrameSize {
    let parts = text.lowercased().split(separator: "x")
    guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width >= 2, height >= 2,
        width <= 16384, height <= 16384, width % 2 == 0, height % 2 == 0
    else {
        throw ValidationError("--size must be WIDTHxHEIGHT with even numbers from 2 to 16384, like 1280x720: \(text)")
    }
    return FrameSize(width: width, height: height)
}
