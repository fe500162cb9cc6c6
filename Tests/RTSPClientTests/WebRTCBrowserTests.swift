import Foundation
import TestSupport
import Testing

/// `rtpdump serve --http-port` played by a real browser: headless Chromium opens the player page, which posts its
/// offer to the WHEP endpoint, and reports what its own decoder did (`getStats()`, scripts/webrtc/browser-plays.py).
@Suite(.serialized) struct WebRTCBrowserTests {
    /// `rtpdump serve` with WebRTC on free ports: the RTSP URL and the player page's URL it printed.
    final class Served: @unchecked Sendable {  // a Process, stopped once
        let rtspURL: String
        let pageURL: String
        private let process: Process

        init(_ input: String, _ arguments: [String]) async throws {
            let started = try await onOwnThread { () -> (String, String, Process) in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: RTPDumpBinary.path)
                process.arguments = ["serve", input, "--port", "0", "--http-port", "0"] + arguments
                let output = Pipe()
                process.standardOutput = output
                process.standardError = FileHandle.nullDevice
                try process.run()
                let handle = output.fileHandleForReading
                return (firstLine(of: handle), firstLine(of: handle), process)
            }
            (rtspURL, pageURL, process) = started
            #expect(
                pageURL.hasPrefix("http://127.0.0.1:") && pageURL.hasSuffix("/stream/"),
                "rtpdump serve printed \(pageURL)")
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    }

    /// What the browser's statistics said of one inbound track.
    struct Track: Decodable {
        let kind: String
        let codec: String?
        let framesDecoded: Int
        let frameWidth: Int
        let frameHeight: Int
        let packetsLost: Int
        let keyFramesDecoded: Int
        let totalAudioEnergy: Double
        let packetsReceived: Int
        let nackCount: Int
        let pliCount: Int
    }

    struct Played: Decodable {
        let error: String?
        let state: String?
        let tracks: [Track]?
        /// Milliseconds from the answer to the first picture painted.
        let firstFrameMs: Double?
    }

    /// An H.264 Annex B file of FFmpeg's test pattern (libx264, Constrained Baseline, 640x360, 30 fps, no
    /// B-frames, a keyframe every `keyframeInterval` pictures), made in the temporary folder; the caller removes it.
    static func h264File(frames: Int, keyframeInterval: Int) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webrtc-\(UUID().uuidString).h264")
            .path
        let made = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-frames:v", "\(frames)", "-c:v",
                "libx264",
                "-profile:v", "baseline", "-bf", "0", "-g", "\(keyframeInterval)", "-sc_threshold", "0", "-pix_fmt",
                "yuv420p", file,
            ])
        #expect(made.status == 0, "\(made.stderr)")
        return file
    }

    /// Plays `url` in Chromium for `seconds`, its microphone playing the WAV file `microphone` when given.
    static func play(_ url: String, seconds: Int, microphone: String? = nil) async throws -> Played {
        let script = RealServer.root.appendingPathComponent("scripts/webrtc/browser-plays.py").path
        let run = try await runProgram(
            "/usr/bin/python3", [script, url, "\(seconds)"] + (microphone.map { [$0] } ?? []))
        #expect(run.status == 0, "\(run.stderr)")
        return try JSONDecoder().decode(Played.self, from: Data(run.stdout.utf8))
    }

    /// An H.264 Annex B file (Constrained Baseline, 640x360, 30 fps, made by FFmpeg's libx264) served at 30 fps:
    /// Chromium decodes it as H.264 of that size, from a keyframe, nothing lost. In 5 s of playing it is sent about
    /// 150 pictures; at least 60 decoded leaves room for a browser that starts late on a busy machine, not for one
    /// that decodes nothing or stalls.
    @Test func chromiumPlaysAServedH264File() async throws {
        let file = try await Self.h264File(frames: 300, keyframeInterval: 30)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let served = try await Served(file, ["--fps", "30", "--loop"])
        let played = try await Self.play(served.pageURL, seconds: 5)
        #expect(played.error == nil && played.state == "connected", "\(played)")
        let video = try #require(played.tracks?.first { $0.kind == "video" })
        #expect(video.codec == "video/H264")
        #expect(video.frameWidth == 640 && video.frameHeight == 360)
        #expect(video.framesDecoded >= 60 && video.keyFramesDecoded >= 1, "\(video.framesDecoded) frames decoded")
        #expect(video.packetsLost == 0)
    }

    /// A second WebRTC stack as the viewer, bit for bit: aiortc (its own ICE, DTLS and SRTP; PyAV decoding) plays
    /// the served file from its first keyframe, and the MD5 of each of its first 60 frames equals FFmpeg's
    /// framemd5 of the file itself.
    @Test func aiortcDecodesTheFilesFramesBitForBit() async throws {
        let python = RealServer.root.appendingPathComponent(".build/webrtc-venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            Issue.record("aiortc's environment is missing: bash scripts/test makes it (.build/webrtc-venv)")
            return
        }
        let file = try await Self.h264File(frames: 90, keyframeInterval: 30)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let reference = try await runProgram("/usr/bin/ffmpeg", ["-v", "error", "-i", file, "-f", "framemd5", "-"])
        let expected = reference.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(expected.count == 90)
        let served = try await Served(file, ["--fps", "30"])
        let script = RealServer.root.appendingPathComponent("scripts/webrtc/aiortc-md5.py").path
        let run = try await runProgram(python, [script, served.pageURL + "whep", "60"])
        #expect(run.status == 0, "\(run.stderr)")
        let frames = run.stdout.split(separator: "\n").map { $0.split(separator: " ") }
        #expect(frames.allSatisfy { $0.count == 3 && $0[1] == "640x360" })
        #expect(frames.map { String($0.last ?? "") } == Array(expected.prefix(60)))
    }

    /// WHIP publishing into another stack: `rtpdump publish` to aiortc as the endpoint
    /// (scripts/webrtc/aiortc-whip-endpoint.py), which decodes what it receives, from the first picture: an Annex B
    /// file's first 60 frames are FFmpeg's framemd5 of the file, a capture's are what `rtpdump decode --md5` decodes
    /// of the capture itself, bit for bit; at the end the publisher deletes its session.
    @Test(arguments: ["file", "capture"]) func aiortcAsAWHIPEndpointDecodesWhatIsPublishedBitForBit(input: String)
        async throws
    {
        let python = RealServer.root.appendingPathComponent(".build/webrtc-venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            Issue.record("aiortc's environment is missing: bash scripts/test makes it (.build/webrtc-venv)")
            return
        }
        let published: [String]
        let expected: [String]
        if input == "file" {
            let file = try await Self.h264File(frames: 90, keyframeInterval: 30)
            published = [file, "--fps", "30"]
            let reference = try await runProgram("/usr/bin/ffmpeg", ["-v", "error", "-i", file, "-f", "framemd5", "-"])
            expected = reference.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
                $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
            }
            #expect(expected.count == 90)
        } else {
            let capture = ServeCommandTests.capture("h264-ffmpeg.pcap")
            published = [capture]
            expected = try await ServeCommandTests.decodedFromCapture("h264-ffmpeg.pcap")
            #expect(expected.count == 75)
        }
        defer { if input == "file" { try? FileManager.default.removeItem(atPath: published[0]) } }
        let script = RealServer.root.appendingPathComponent("scripts/webrtc/aiortc-whip-endpoint.py").path
        let endpoint = Process()
        endpoint.executableURL = URL(fileURLWithPath: python)
        endpoint.arguments = [script, "0", "60"]
        let output = Pipe()
        let errors = Pipe()
        endpoint.standardOutput = output
        endpoint.standardError = errors
        try endpoint.run()
        defer { if endpoint.isRunning { kill(endpoint.processIdentifier, SIGKILL) } }
        let ready = try await onOwnThread { firstLine(of: output.fileHandleForReading) }
        let port = try #require(ready.split(separator: " ").last.flatMap { Int($0) }, "the endpoint printed \(ready)")
        let run = try await RTPDumpBinary.run(["publish"] + published + ["--whip", "http://127.0.0.1:\(port)/whip"])
        #expect(run.status == 0, "\(run.stderr)")
        let decoded = try await onOwnThread { () -> (String, String) in
            let frames = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let requests = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (frames, requests)
        }
        let frames = decoded.0.split(separator: "\n").map { $0.split(separator: " ") }
        #expect(frames.count == 60 && frames.allSatisfy { $0.count == 3 })
        #expect(frames.map { String($0.last ?? "") } == Array(expected.prefix(60)))
        #expect(decoded.1.split(separator: "\n").filter { $0 == "POST" || $0 == "DELETE" } == ["POST", "DELETE"])
    }

    /// A publisher told no says why: a WHEP endpoint (this library's, which takes viewers, not publishers) refuses
    /// the offer with its reason, an endpoint that is not there is named; neither hangs.
    @Test func aRefusedOrAbsentEndpointIsSaid() async throws {
        let file = try await Self.h264File(frames: 30, keyframeInterval: 30)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let served = try await Served(file, ["--fps", "30", "--loop"])
        let refused = try await RTPDumpBinary.run(["publish", file, "--whip", served.pageURL + "whep"])
        #expect(refused.status != 0)
        #expect(
            refused.stderr.contains("refused the offer: 400") && refused.stderr.contains("does not receive"),
            "\(refused.stderr)")
        let absent = try await RTPDumpBinary.run(["publish", file, "--whip", "http://127.0.0.1:9/whip"])
        #expect(absent.status != 0 && absent.stderr.contains("127.0.0.1:9"), "\(absent.stderr)")
    }

    /// A camera relayed to a browser without re-encoding: gst-rtsp-server's H.264 with its parameter sets in the
    /// SDP only (as many cameras send them; the relay puts them in front of each keyframe), its G.711 tone and AAC
    /// beside it. Chromium decodes the H.264 at the camera's size and plays the G.711 (the tone's energy in its
    /// statistics); AAC is not offered to it (browsers play Opus and G.711).
    @Test func chromiumPlaysARelayedCamerasVideoAndG711() async throws {
        // Two minutes of camera: its stream starts when the relay connects, before the browser, which a busy
        // machine starts slowly.
        let camera = try await RealServer(["--audio", "--sdp-parameter-sets-only", "--frames", "3600"])
        defer { camera.stop() }
        let served = try await Served(camera.url, [])
        let played = try await Self.play(served.pageURL, seconds: 5)
        #expect(played.error == nil && played.state == "connected", "\(played)")
        let video = try #require(played.tracks?.first { $0.kind == "video" })
        #expect(video.codec == "video/H264" && video.frameWidth == 320 && video.frameHeight == 240)
        #expect(video.framesDecoded >= 60 && video.packetsLost == 0, "\(video.framesDecoded) frames decoded")
        let audio = try #require(played.tracks?.first { $0.kind == "audio" })
        #expect(audio.codec == "audio/PCMU" && audio.totalAudioEnergy > 0 && audio.packetsLost == 0, "\(audio)")
    }

    /// An AAC-only source (GStreamer's AAC tone, captured) re-encoded to Opus for the browser: Chromium plays it as
    /// Opus, 20 ms a packet, with the tone's energy in its statistics; the source's video section is refused.
    @Test func chromiumPlaysAnAACSourceReencodedToOpus() async throws {
        let capture = RealServer.root.appendingPathComponent("Fixtures/captures/audio-aac-gst.pcap").path
        let sdp = RealServer.root.appendingPathComponent("Fixtures/captures/audio-aac-gst.sdp").path
        let served = try await Served(capture, ["--sdp", sdp, "--loop"])
        let played = try await Self.play(served.pageURL, seconds: 5)
        #expect(played.error == nil && played.state == "connected", "\(played)")
        let audio = try #require(played.tracks?.first { $0.kind == "audio" }, "\(played)")
        #expect(audio.codec == "audio/opus" && audio.totalAudioEnergy > 0, "\(audio)")
        #expect(audio.packetsReceived >= 100 && audio.packetsLost == 0, "\(audio)")
        #expect(played.tracks?.contains { $0.kind == "video" } == false)
    }

    /// Two-way audio: Chromium's microphone (a file of a 440 Hz tone) talks through `rtpdump serve --talk` to the
    /// relayed gst-rtsp-server's ONVIF backchannel (G.711 µ-law), while it plays the camera's video and G.711. The
    /// page, opened with `?talk`, is answered in PCMU both ways on its audio section; its packets go to the camera
    /// as they came, and what the camera decodes is the tone: its power at 440 Hz far above that at other
    /// frequencies (the browser's own audio processing runs on the microphone, as it does for a user). The
    /// camera's backchannel is not served as a track.
    @Test func chromiumTalksToARelayedCamerasBackchannel() async throws {
        let wav = try await BackchannelTests.tone(seconds: 10, rate: 48_000)
        defer { try? FileManager.default.removeItem(at: wav) }
        let heard = BackchannelTests.temporary("browser-heard.raw")
        defer { try? FileManager.default.removeItem(at: heard) }
        let camera = try await RealServer(["--audio", "--backchannel", heard.path, "--frames", "3600"])
        defer { camera.stop() }
        let served = try await Served(camera.url, ["--talk"])
        let played = try await Self.play(served.pageURL + "?talk", seconds: 5, microphone: wav.path)
        #expect(played.error == nil && played.state == "connected", "\(played)")
        let audio = try #require(played.tracks?.first { $0.kind == "audio" }, "\(played)")
        #expect(audio.codec == "audio/PCMU" && audio.totalAudioEnergy > 0, "\(audio)")
        #expect(played.tracks?.contains { $0.kind == "video" && $0.framesDecoded > 0 } == true, "\(played)")
        let bytes = try await BackchannelTests.heard(heard, atLeast: 2 * 8000 * 2)
        #expect(bytes.count >= 2 * 8000 * 2, "the camera decoded \(bytes.count) bytes of the browser's voice")
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map { Double($0) }
        let tone = Self.power(samples, at: 440, rate: 8000)
        let others = [200.0, 700, 1000, 1500, 2500].map { Self.power(samples, at: $0, rate: 8000) }
        #expect(tone > 20 * (others.max() ?? 0), "power at 440 Hz \(tone), elsewhere \(others)")
    }

    /// The power of `samples` at `frequency` (Goertzel's filter), per sample.
    static func power(_ samples: [Double], at frequency: Double, rate: Double) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / rate)
        var (previous, beforeThat) = (0.0, 0.0)
        for sample in samples {
            (previous, beforeThat) = (sample + coefficient * previous - beforeThat, previous)
        }
        return (previous * previous + beforeThat * beforeThat - coefficient * previous * beforeThat)
            / Double(max(1, samples.count))
    }

    /// The WHEP endpoint over HTTP as curl speaks it: CORS for a preflight, an offer that is not SDP refused with the
    /// reason, a path with nothing mounted 404, trickle ICE 405, a viewer's resource deleted once.
    @Test func theWHEPEndpointAnswersAsRFC9725Says() async throws {
        let file = RealServer.root.appendingPathComponent("Fixtures/captures/h264-gst.pcap").path
        let served = try await Served(file, ["--loop"])
        let whep = served.pageURL + "whep"
        func curl(_ arguments: [String]) async throws -> (status: Int, headers: String, body: String) {
            let run = try await runProgram(
                "/usr/bin/curl", ["-s", "-D", "-", "-o", "-", "--max-time", "10"] + arguments)
            let text = run.stdout.replacingOccurrences(of: "\r\n", with: "\n")
            let parts = text.components(separatedBy: "\n\n")
            let status = Int(parts.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
            return (status, parts.first ?? "", parts.dropFirst().joined(separator: "\n\n"))
        }
        let preflight = try await curl(["-X", "OPTIONS", whep])
        #expect(preflight.status == 204 && preflight.headers.lowercased().contains("access-control-allow-origin: *"))
        let notSDP = try await curl([
            "-X", "POST", "-H", "Content-Type: application/sdp", "--data-binary", "hello", whep,
        ])
        #expect(notSDP.status == 400 && notSDP.body.contains("not a session description"), "\(notSDP)")
        let wrongType = try await curl(["-X", "POST", "-H", "Content-Type: text/plain", "--data-binary", "v=0", whep])
        #expect(wrongType.status == 415)
        let elsewhere = try await curl([
            "-X", "POST", "-H", "Content-Type: application/sdp", "--data-binary", "v=0",
            served.pageURL + "../other/whep",
        ])
        #expect(elsewhere.status == 404)
        #expect(try await curl(["-X", "PATCH", whep + "/x"]).status == 405)
        let offer = RealServer.root.appendingPathComponent("Tests/WebRTCTests/Offers/chromium-recvonly.sdp").path
        let created = try await curl([
            "-X", "POST", "-H", "Content-Type: application/sdp", "--data-binary", "@\(offer)", whep,
        ])
        #expect(created.status == 201 && created.body.hasPrefix("v=0"), "\(created)")
        let location = created.headers.split(separator: "\n").first { $0.lowercased().hasPrefix("location:") }
            .map { $0.dropFirst("location:".count).trimmingCharacters(in: .whitespaces) }
        let resource = try #require(location)
        let base = served.pageURL.components(separatedBy: "/stream/").first ?? ""
        #expect(try await curl(["-X", "DELETE", base + resource]).status == 200)
        #expect(try await curl(["-X", "DELETE", base + resource]).status == 404)
    }
}
