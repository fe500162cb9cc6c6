import Foundation
import RTSPClient
import RTSPServer
import TestSupport
import Testing

/// `rtpdump serve` played by the players a user would otherwise use: FFmpeg over TCP, GStreamer's rtspsrc over
/// UDP, and this library's client. Each must decode the frames `rtpdump decode` decodes from the capture itself.
@Suite(.serialized, .loadExclusive) struct ServeCommandTests {
    /// `rtpdump serve` of a capture on a free port, with what it printed first: the URL it serves.
    final class Served: @unchecked Sendable {  // a Process, stopped once
        let url: String
        private let process: Process

        /// Served inside `namespace` when given (its URL is then that namespace's).
        init(_ capture: String, _ arguments: [String] = [], namespace: TestNamespace? = nil) async throws {
            let started = try await onOwnThread { () -> Started in
                let process = Process()
                let command = ["serve", capture, "--port", "0"] + arguments
                let (program, programArguments) =
                    namespace?.command(RTPDumpBinary.path, command) ?? (RTPDumpBinary.path, command)
                process.executableURL = URL(fileURLWithPath: program)
                process.arguments = programArguments
                let output = Pipe()
                process.standardOutput = output
                process.standardError = FileHandle.nullDevice
                try process.run()
                return Started(url: firstLine(of: output.fileHandleForReading), process: process)
            }
            (url, process) = (started.url, started.process)
            #expect(
                url.hasPrefix("rtsp://127.0.0.1:") || url.hasPrefix("rtsps://127.0.0.1:"),
                "rtpdump serve printed \(url)")
        }

        var isRunning: Bool { process.isRunning }

        /// The server's process id (its memory is read from /proc).
        var processIdentifier: Int32 { process.processIdentifier }

        struct Started: @unchecked Sendable {
            let url: String
            let process: Process
        }

        /// Waits for the server to end by itself (the capture played once); kills it after `seconds`.
        func waitForExit(seconds: Double = 15) async -> Int32? {
            for _ in 0..<Int(seconds * 20) where process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
            guard !process.isRunning else {
                kill(process.processIdentifier, SIGKILL)
                return nil
            }
            return process.terminationStatus
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    }

    static func capture(_ name: String) -> String {
        RealServer.root.appendingPathComponent("Fixtures/captures/\(name)").path
    }

    /// The MD5 of each picture FFmpeg decodes from `url` over `transport` (its framemd5, every frame as it comes);
    /// FFmpeg must end without an error. Run inside `namespace` when given.
    static func ffmpegFrameMD5s(_ url: String, transport: String = "tcp", namespace: TestNamespace? = nil)
        async throws -> [String]
    {
        let arguments = [
            "-v", "error", "-rtsp_transport", transport, "-i", url, "-fps_mode", "passthrough", "-pix_fmt",
            "yuv420p", "-f", "framemd5", "-",
        ]
        let (program, programArguments) =
            namespace?.command("/usr/bin/ffmpeg", arguments) ?? ("/usr/bin/ffmpeg", arguments)
        let run = try await runProgram(program, programArguments)
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The MD5 of each frame `rtpdump decode --md5` decodes from the capture.
    static func decodedFromCapture(_ name: String) async throws -> [String] {
        let run = try await RTPDumpBinary.run(["decode", capture(name), "--md5"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
    }

    @Test(arguments: ["h264-ffmpeg.pcap", "h265-ffmpeg-ipv6.pcapng"])
    func ffmpegOverTCPDecodesTheCapturesFrames(name: String) async throws {
        let expected = try await Self.decodedFromCapture(name)
        #expect(expected.count == 75)
        let served = try await Served(Self.capture(name))
        let frames = try await Self.ffmpegFrameMD5s(served.url)
        #expect(frames == expected)
        // The server ends once the capture has played and its client has gone.
        #expect(await served.waitForExit() == 0)
    }

    @Test(arguments: [("h264-ffmpeg.pcap", "h264"), ("h265-ffmpeg-ipv6.pcapng", "h265")])
    func gstreamerOverUDPDecodesTheCapturesFrames(name: String, codec: String) async throws {
        let expected = try await Self.decodedFromCapture(name)
        let served = try await Served(Self.capture(name))
        let run = try await runProgram(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "rtspsrc", "location=\(served.url)", "protocols=udp", "!", "rtp\(codec)depay", "!",
                "\(codec)parse", "!",
                "avdec_\(codec)", "max-threads=1", "!", "video/x-raw,format=I420", "!", "checksumsink", "hash=md5",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let frames = run.all.split(separator: "\n").compactMap { line in
            line.split(whereSeparator: { $0 == " " || $0 == "\t" }).last.map(String.init).flatMap {
                $0.count == 32 ? $0 : nil
            }
        }
        #expect(frames == expected)
        _ = await served.waitForExit()
    }

    /// `rtpdump serve --multicast` in a namespace of its own loopback (nothing sent to the group can leave it), played
    /// by each player a user has joining the group: GStreamer's rtspsrc (udp-mcast), FFmpeg (udp_multicast) and this
    /// library's client each decode the capture's frames, and the server ends once its viewer has gone.
    @Test(
        .enabled(if: TestNamespace.available, "a namespace of its own needs root and iproute2"),
        arguments: ["gstreamer", "ffmpeg", "rtpdump"])
    func multicastViewersDecodeTheCapturesFrames(player: String) async throws {
        let expected = try await Self.decodedFromCapture("h264-ffmpeg.pcap")
        let namespace = try TestNamespace(loopbackOnly: "rtpmcs\(getpid() % 10000)")
        defer { withExtendedLifetime(namespace) {} }
        let served = try await Served(
            Self.capture("h264-ffmpeg.pcap"),
            ["--multicast", "239.255.0.1:5004", "--multicast-interface", "127.0.0.1"], namespace: namespace)
        let frames: [String]
        switch player {
        case "gstreamer":
            let (program, arguments) = namespace.command(
                "/usr/bin/gst-launch-1.0",
                [
                    "-q", "rtspsrc", "location=\(served.url)", "protocols=udp-mcast", "multicast-iface=lo", "!",
                    "rtph264depay", "!", "h264parse", "!", "avdec_h264", "max-threads=1", "!",
                    "video/x-raw,format=I420", "!", "checksumsink", "hash=md5",
                ])
            let run = try await runProgram(program, arguments)
            #expect(run.status == 0, "\(run.stderr)")
            frames = run.all.split(separator: "\n").compactMap { line in
                line.split(whereSeparator: { $0 == " " || $0 == "\t" }).last.map(String.init).flatMap {
                    $0.count == 32 ? $0 : nil
                }
            }
        case "ffmpeg":
            frames = try await Self.ffmpegFrameMD5s(served.url, transport: "udp_multicast", namespace: namespace)
        default:
            let (program, arguments) = namespace.command(
                RTPDumpBinary.path, ["decode", served.url, "--md5", "--transport", "multicast"])
            let run = try await runProgram(program, arguments)
            #expect(run.stderr.contains("server ended the stream"), "\(run.stderr)")
            #expect(!run.stderr.contains("playing again over TCP"), "\(run.stderr)")
            frames = run.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        }
        #expect(frames == expected)
        #expect(await served.waitForExit() == 0)
    }

    /// A player that paused (taking no media) is still a player: the server waits past the capture's end for its
    /// TEARDOWN, answers it, and only then ends. gst-launch's rtspsrc pauses and then tears down; a server that
    /// ended at the pause failed its TEARDOWN.
    @Test func aPausedPlayerIsWaitedForUntilItTearsDown() async throws {
        let served = try await Served(Self.capture("h264-ffmpeg.pcap"))
        let session = try await RTSPSession.connect(to: served.url)
        try await session.pause()
        try await Task.sleep(for: .seconds(5))  // the capture plays 3 s
        #expect(served.isRunning, "the server ended with a player's session open")
        await session.teardown()
        #expect(await served.waitForExit() == 0, "the server did not end once its player had left")
    }

    /// This library's client plays the served capture over TCP and over UDP: the same frames.
    @Test(arguments: ["tcp", "udp"])
    func theLibrarysClientDecodesTheCapturesFrames(transport: String) async throws {
        let expected = try await Self.decodedFromCapture("h264-ffmpeg.pcap")
        let served = try await Served(Self.capture("h264-ffmpeg.pcap"))
        let run = try await RTPDumpBinary.run(["decode", served.url, "--md5", "--transport", transport])
        #expect(run.stderr.contains("server ended the stream"), "\(run.stderr)")
        let frames = run.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(frames == expected)
        _ = await served.waitForExit()
    }

    /// An Annex B file (what `rtpdump extract` writes) served at --fps: FFmpeg decodes the same frames from the
    /// served stream as from the file.
    @Test(arguments: ["h264-ffmpeg.pcap", "h265-ffmpeg-ipv6.pcapng"])
    func anAnnexBFileIsServedAsFFmpegDecodesIt(name: String) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "serve-\(UUID()).\(name.hasPrefix("h264") ? "h264" : "h265")")
        defer { try? FileManager.default.removeItem(at: file) }
        let extracted = try await RTPDumpBinary.run(["extract", Self.capture(name), "-o", file.path])
        #expect(extracted.status == 0, "\(extracted.stderr)")
        func frames(_ input: String, _ extra: [String]) async throws -> [String] {
            let run = try await runProgram(
                "/usr/bin/ffmpeg",
                ["-v", "error"] + extra + [
                    "-i", input, "-fps_mode", "passthrough", "-pix_fmt", "yuv420p", "-f", "framemd5", "-",
                ])
            #expect(run.status == 0, "\(run.stderr)")
            return run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
                $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
            }
        }
        let expected = try await frames(file.path, [])
        #expect(expected.count == 75)
        let served = try await Served(file.path, ["--fps", "50"])
        #expect(try await frames(served.url, ["-rtsp_transport", "tcp"]) == expected)
        #expect(await served.waitForExit() == 0)
    }

    /// Motion JPEG served: FFmpeg decodes the same frames from the served stream as from the pictures `rtpdump
    /// extract` takes out of the capture (as GStreamer depayloads them: MJPEGCommandTests).
    @Test func motionJPEGIsServedAsFFmpegDecodesIt() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID()).mjpeg")
        defer { try? FileManager.default.removeItem(at: file) }
        let sdp = Self.capture("mjpeg-420-gst.sdp")
        let extracted = try await RTPDumpBinary.run([
            "extract", Self.capture("mjpeg-420-gst.pcap"), "--sdp", sdp, "-o", file.path,
        ])
        #expect(extracted.status == 0, "\(extracted.stderr)")
        func frames(_ arguments: [String]) async throws -> [String] {
            let run = try await runProgram(
                "/usr/bin/ffmpeg", ["-v", "error"] + arguments + ["-fps_mode", "passthrough", "-f", "framemd5", "-"])
            #expect(run.status == 0, "\(run.stderr)")
            return run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
                $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
            }
        }
        let expected = try await frames(["-f", "mjpeg", "-i", file.path])
        #expect(expected.count == 30)
        let served = try await Served(Self.capture("mjpeg-420-gst.pcap"), ["--sdp", sdp])
        #expect(try await frames(["-rtsp_transport", "tcp", "-i", served.url]) == expected)
        #expect(await served.waitForExit() == 0)
    }

    /// Audio a capture's SDP describes is served too: FFmpeg's PCM of the served track equals its PCM of
    /// `rtpdump decode --audio` of the capture.
    @Test(arguments: ["audio-aac-gst", "audio-pcmu-gst", "audio-opus-ffmpeg"])
    func ffmpegDecodesTheServedAudio(name: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let wav = directory.appendingPathComponent("capture.wav").path
        let sdp = Self.capture("\(name).sdp")
        let decoded = try await RTPDumpBinary.run([
            "decode", Self.capture("\(name).pcap"), "--sdp", sdp, "--audio", "-o", wav,
        ])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let expected = directory.appendingPathComponent("expected.raw")
        _ = try await runProgram("/usr/bin/ffmpeg", ["-v", "error", "-i", wav, "-f", "s16le", expected.path])
        let served = try await Served(Self.capture("\(name).pcap"), ["--sdp", sdp])
        let received = directory.appendingPathComponent("received.raw")
        let run = try await runProgram(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-rtsp_transport", "tcp", "-i", served.url, "-f", "s16le", received.path])
        #expect(run.status == 0, "\(run.stderr)")
        let pcm = try Data(contentsOf: received)
        #expect(pcm.count > 10_000)
        #expect(pcm == (try Data(contentsOf: expected)))
        _ = await served.waitForExit()
    }

    /// SRTP (--serve-srtp, the key in the SDP's a=crypto): FFmpeg's own SRTP over TCP and UDP, and this library's
    /// client, decode the capture's frames.
    @Test func srtpIsPlayedByFFmpegAndTheLibrarysClient() async throws {
        let expected = try await Self.decodedFromCapture("h264-ffmpeg.pcap")
        for transport in ["tcp", "udp"] {
            let served = try await Served(Self.capture("h264-ffmpeg.pcap"), ["--serve-srtp"])
            let frames = try await Self.ffmpegFrameMD5s(served.url, transport: transport)
            #expect(frames == expected, "FFmpeg over \(transport)")
            _ = await served.waitForExit()
        }
        let served = try await Served(Self.capture("h264-ffmpeg.pcap"), ["--serve-srtp"])
        let run = try await RTPDumpBinary.run(["decode", served.url, "--md5"])
        #expect(
            run.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) } == expected)
        _ = await served.waitForExit()
    }

    /// RTSPS (--tls-cert, --tls-key: openssl's self-signed certificate for 127.0.0.1): the URL printed is rtsps://;
    /// FFmpeg over TLS, and this library's client trusting the certificate (with SRTP inside as well), decode the
    /// capture's frames; a client that does not trust it is refused by its TLS check, not served in the clear.
    @Test func rtspsIsPlayedByFFmpegAndTheLibrarysClient() async throws {
        let expected = try await Self.decodedFromCapture("h264-ffmpeg.pcap")
        let (cert, key) = try await RealServerTests.certificate("IP:127.0.0.1")
        let tls = ["--tls-cert", cert, "--tls-key", key]
        let served = try await Served(Self.capture("h264-ffmpeg.pcap"), tls)
        #expect(served.url.hasPrefix("rtsps://127.0.0.1:"))
        let frames = try await Self.ffmpegFrameMD5s(served.url)
        #expect(frames == expected, "FFmpeg over RTSPS")
        _ = await served.waitForExit()
        for extra in [[], ["--serve-srtp"]] {
            let served = try await Served(Self.capture("h264-ffmpeg.pcap"), tls + extra)
            let untrusted = try await RTPDumpBinary.run(["streams", served.url])
            #expect(untrusted.status != 0)
            #expect(untrusted.stderr.contains("TLS"), "\(untrusted.stderr)")
            let decoded = try await RTPDumpBinary.run(["decode", served.url, "--md5", "--tls-trust", cert])
            #expect(
                decoded.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
                    == expected, "\(extra) \(decoded.stderr)")
            _ = await served.waitForExit()
        }
    }

    /// A certificate or key that cannot be read, or a key that is not the certificate's: start() says which, as
    /// RTSPServerError.tlsFailed, and nothing listens.
    @Test func aServerWithABadCertificateOrKeyDoesNotStart() async throws {
        let (cert, key) = try await RealServerTests.certificate("IP:127.0.0.1")
        let (_, otherKey) = try await RealServerTests.certificate("IP:127.0.0.1")
        for (certificate, privateKey, words) in [
            ("/nonexistent/cert.pem", key, "certificate /nonexistent/cert.pem"),
            (cert, "/nonexistent/key.pem", "key /nonexistent/key.pem"), (key, key, "certificate \(key)"),
            (cert, otherKey, "not the certificate's"),
        ] {
            var configuration = RTSPServer.Configuration(host: "127.0.0.1", port: 0)
            configuration.tls = .init(certificateFile: certificate, privateKeyFile: privateKey)
            let server = RTSPServer(configuration: configuration)
            do {
                try await server.start()
                Issue.record("started with \(certificate) and \(privateKey)")
                await server.stop()
            } catch let error as RTSPServerError {
                #expect(error.code == .tlsFailed)
                #expect(error.description.contains(words), "\(error)")
                #expect(server.port == nil)
            }
        }
    }

    /// With --serve-user, a client without the password gets 401 and one with it plays (Digest).
    @Test func aServerWithAUserLetsOnlyThatUserIn() async throws {
        let served = try await Served(
            Self.capture("h264-ffmpeg.pcap"), ["--serve-user", "viewer", "--serve-password", "pa ss:wörd"])
        let refused = try await RTPDumpBinary.run(["streams", served.url])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("401"), "\(refused.stderr)")
        let run = try await RTPDumpBinary.run([
            "decode", served.url, "--md5", "--user", "viewer", "--password", "pa ss:wörd",
        ])
        #expect(run.stdout.split(separator: "\n").count == 75, "\(run.stderr)")
        _ = await served.waitForExit()
    }

    /// A camera (gst-rtsp-server) relayed: FFmpeg plays the relay, and decodes what the camera sends. The camera
    /// sends for longer than FFmpeg reads (it is stopped after): FFmpeg joins the relay when its own start allows,
    /// and the count must not depend on how much of a short stream was left by then.
    @Test func aRelayedCameraPlaysInFFmpeg() async throws {
        let camera = try await RealServer(["--frames", "1800"])
        let served = try await Served(camera.url)
        let run = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-rtsp_transport", "tcp", "-i", served.url, "-frames:v", "60", "-pix_fmt", "yuv420p",
                "-f", "framemd5", "-",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let frames = run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(frames.count == 60)
        #expect(!run.stderr.contains("corrupt"), "\(run.stderr)")
        camera.stop()
        _ = await served.waitForExit(seconds: 10)
    }
}
