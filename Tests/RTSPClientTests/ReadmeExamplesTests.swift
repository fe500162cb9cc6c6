import Foundation
import RTSPClient
import RTSPServer
import TestSupport
import Testing

/// The README's examples are code that builds and runs: each ```swift block names the file it comes from
/// (an HTML comment `<!-- from: PATH -->` just before it), and every line of the block is a line of that file,
/// in order (lines may be left out between, and "…" stands for code left out).
@Suite struct ReadmeExamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static func trimmed(_ line: Substring) -> String { line.trimmingCharacters(in: .whitespaces) }

    /// Each Swift block of the README with the file its comment names.
    static func blocks() throws -> [(source: String?, lines: [String])] {
        var blocks: [(String?, [String])] = []
        var source: String?
        var current: [String]?
        for line in try text("README.md").split(separator: "\n", omittingEmptySubsequences: false) {
            if let open = current {
                if line.hasPrefix("```") {
                    blocks.append((source, open))
                    current = nil
                    source = nil
                } else {
                    current = open + [trimmed(line)]
                }
            } else if line.hasPrefix("<!-- from: ") {
                source = String(line.dropFirst("<!-- from: ".count).prefix { $0 != " " })
            } else if line.hasPrefix("```swift") {
                current = []
            }
        }
        return blocks
    }

    @Test func everySwiftBlockOfTheReadmeIsCodeInTheRepository() throws {
        let blocks = try Self.blocks()
        #expect(blocks.count >= 3)
        for (source, lines) in blocks {
            let path = try #require(source, "a README Swift block names no source file: \(lines.first ?? "")")
            let file = try Self.text(path).split(separator: "\n").map(Self.trimmed)
            var position = 0
            for line in lines where !line.isEmpty && line != "…" {
                guard let found = file[position...].firstIndex(of: line) else {
                    Issue.record("README line not in \(path) (in order): \(line)")
                    break
                }
                position = found + 1
            }
        }
    }

    /// The capture example gives the capture's 90 pictures, complete, and the decoding example decodes them.
    @Test func theCaptureAndDecodingExamplesRun() throws {
        let capture = Self.root.appendingPathComponent("Fixtures/captures/h264-gst.pcap").path
        let units = try accessUnits(ofCapture: capture)
        #expect(units.count == 90)
        #expect(units.allSatisfy { $0.isComplete && $0.track == 0 })
        let (frame, pushed) = try latestFrame(of: units, parameterSets: nil)
        #expect(pushed >= 89)
        #expect(frame?.width == 320 && frame?.mayBeDamaged == false)
    }

    /// The video and audio example against gst-rtsp-server's H.264, G.711 and AAC: the 60 pictures decoded,
    /// and 10 ms chunks of both audio tracks (2 s each, give or take the AAC encoder's delay), dated.
    @Test func theVideoAndAudioExampleRuns() async throws {
        let server = try await RealServer(["--audio", "--frames", "60", "--rtcp-interval", "300"])
        defer { server.stop() }
        let (frames, chunks) = try await videoAndAudio(of: server.url)
        #expect((58...60).contains(frames.count))
        #expect(frames.allSatisfy { !$0.mayBeDamaged && $0.track == 0 && $0.width == 320 })
        #expect(frames.filter { $0.captureTime != nil }.count >= frames.count / 2)
        let g711 = chunks.filter { $0.track == 1 }
        let aac = chunks.filter { $0.track == 2 }
        #expect(g711.allSatisfy { $0.sampleCount == 80 && $0.sampleRate == 8000 })
        #expect(aac.allSatisfy { $0.sampleCount == 480 && $0.sampleRate == 48000 })
        #expect((195...200).contains(g711.count), "\(g711.count) G.711 chunks")
        #expect((180...200).contains(aac.count), "\(aac.count) AAC chunks")
        #expect(chunks.filter { $0.captureTime != nil }.count >= chunks.count / 2)
    }

    /// The snapshot example against gst-rtsp-server, whose parameter sets are in its SDP alone: a 320x240 JPEG that
    /// FFmpeg reads.
    @Test func theSnapshotExampleRuns() async throws {
        let server = try await RealServer(["--frames", "900"])
        defer { server.stop() }
        let jpeg = try await snapshot(of: server.url)
        #expect(jpeg.starts(with: [0xFF, 0xD8]) && jpeg.count > 1000)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(jpeg).write(to: file)
        let probe = try await runProgram(
            "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", file.path])
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "320,240", "\(probe.all)")
    }

    /// The metadata example against gst-rtsp-server's video and data tracks (`--payloads`): the ONVIF track's
    /// 20 documents, and the application track's units (20 buffers, and rtpgstpay's caps and events) handed on raw.
    @Test func theMetadataExampleRuns() async throws {
        let server = try await RealServer(["--payloads", "--frames", "60"])
        defer { server.stop() }
        let (documents, rawUnits) = try await metadata(of: server.url)
        #expect((18...20).contains(documents.count), "\(documents.count) documents")
        #expect(documents.allSatisfy { $0.text?.hasPrefix("<?xml") == true && $0.track == 2 })
        #expect((18...30).contains(rawUnits.count), "\(rawUnits.count) raw units")  // rtpgstpay's caps and events too
        #expect(rawUnits.allSatisfy { $0.track == 1 && !$0.bytes.isEmpty && $0.lostPackets == 0 })
    }

    /// The recording example against gst-rtsp-server's video, G.711 and AAC (`--audio`), 5 s in segments of
    /// 2 s: every file holds the three tracks, starts at a keyframe and plays alone in FFmpeg.
    @Test func theRecordingExampleRuns() async throws {
        let server = try await RealServer(["--audio", "--frames", "150"])
        defer { server.stop() }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString).mp4").path
        let (files, leftOut) = try await record(server.url, to: path, segment: .seconds(2))
        defer { for file in files { try? FileManager.default.removeItem(atPath: file) } }
        #expect(leftOut == 0)
        #expect((2...4).contains(files.count), "\(files)")
        for file in files {
            let probe = try await runProgram(
                "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", file])
            #expect(probe.stdout.split(separator: "\n").sorted() == ["aac", "h264", "pcm_mulaw"], "\(file)")
            let first = try await runProgram(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags", "-read_intervals", "%+#1",
                    "-of", "csv=p=0", file,
                ])
            #expect(first.stdout.hasPrefix("K"), "\(file) starts with \(first.stdout)")
            let decode = try await runProgram("/usr/bin/ffmpeg", ["-v", "error", "-i", file, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.stderr.isEmpty, "\(file): \(decode.stderr)")
        }
    }

    /// The replay example against gst-rtsp-server's ONVIF replay of a 10 s recording made at 2026-01-01T00:00:00Z
    /// (`--file --onvif-replay`): 30 pictures from 5 s, then 30 from 2 s, each dated with its recorded time.
    @Test func theReplayExampleRuns() async throws {
        let (path, _) = try await RealServerPlaybackTests.recording()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await RealServer(["--file", path, "--onvif-replay", "3976214400"])
        defer { server.stop() }
        let pictures = try await replay(server.url, from: "npt=5-", thenFrom: 2)
        #expect(pictures.count == 60)
        let times = pictures.map { $0.recorded?.secondsSince1970 ?? 0 }
        let before = pictures.prefix { !$0.afterJump }.count
        #expect((30...40).contains(before), "\(before) pictures before the jump")
        #expect(abs(times[0] - 1_767_225_605) < 0.001)
        // From the keyframe at 2 s, on a frame of the recording. (With Rate-Control: no, a consumer slowed by a busy
        // machine lost the first pictures after the jump to the session's buffer bound: 2.233 s once, 4.433 s
        // once. The example plays in real time.)
        let jumpedTo = times[before] - 1_767_225_602
        #expect(jumpedTo > -0.001 && jumpedTo < 0.5, "\(times)")
        #expect(abs(jumpedTo * 30 - (jumpedTo * 30).rounded()) < 0.03, "on a frame of the recording: \(times)")
        for i in (before + 1)..<times.count { #expect(abs(times[i] - times[i - 1] - 1.0 / 30) < 0.001) }
    }

    /// The recording example's files served back by the serving example: FFmpeg over RTSP finds the camera's three
    /// tracks (H.264, G.711, AAC) in the first segment, and the H.264 it receives is the recording's, NAL unit for NAL
    /// unit (FFmpeg's own extraction of the file, `h264_mp4toannexb`). Pictures are not compared decoded: this
    /// camera sends parameter sets before each IDR slice, and FFmpeg's raw H.264 parser (what reads RTP's H.264 too)
    /// takes those for a new picture where its MP4 reader does not, for the file's own bitstream as for ours.
    @Test func theRecordingsServedBackExampleRuns() async throws {
        let camera = try await RealServer(["--audio", "--frames", "150"])
        defer { camera.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cam.mp4").path
        let (files, _) = try await record(camera.url, to: path, segment: .seconds(2))
        let first = try #require(files.first)
        #expect(first.hasSuffix("/cam-00001.mp4"))
        let server = try await serveRecordings(in: directory.path, port: 0)
        let url = "rtsp://127.0.0.1:\(try #require(server.port))/recordings/cam-00001"
        let probe = try await runProgram(
            "/usr/bin/ffprobe",
            ["-v", "error", "-rtsp_transport", "tcp", "-show_entries", "stream=codec_name", "-of", "csv=p=0", url])
        #expect(probe.stdout.split(separator: "\n").sorted() == ["aac", "h264", "pcm_mulaw"], "\(probe.all)")
        let fromFile = directory.appendingPathComponent("file.h264").path
        let fromServer = directory.appendingPathComponent("served.h264").path
        let extracted = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", first, "-map", "0:v", "-c", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "h264",
                fromFile,
            ])
        let received = try await runProgram(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-rtsp_transport", "tcp", "-i", url, "-map", "0:v", "-c", "copy", "-f", "h264", fromServer])
        await server.stop()
        #expect(extracted.status == 0 && received.status == 0, "\(extracted.stderr) \(received.stderr)")
        // The NAL units of each, whatever length of start code precedes them.
        let compare = """
            import sys
            def nals(path):
                return [n.rstrip(b"\\0") for n in open(path, "rb").read().split(b"\\0\\0\\1")[1:]]
            a, b = nals(sys.argv[1]), nals(sys.argv[2])
            print(len(a), len(b), a == b)
            """
        let compared = try await runProgram("/usr/bin/python3", ["-c", compare, fromFile, fromServer])
        let fields = compared.stdout.split(separator: " ")
        #expect(fields.count == 3 && (Int(fields[0]) ?? 0) > 60, "\(compared.all)")
        #expect(
            fields.last?.hasPrefix("True") == true, "NAL units of the file, then of the served stream: \(compared.all)")
    }

    /// The relay example against gst-rtsp-server's H.264, G.711 and AAC: FFmpeg finds the relay's three tracks
    /// and plays them over UDP without a fault.
    @Test(.loadExclusive) func theRelayExampleRuns() async throws {
        // Ten minutes of camera (the test stops it): the test may wait its turn for a place to run FFmpeg, and a
        // minute of camera ran out while it waited on a busy machine (FFmpeg then found no stream to play).
        let camera = try await RealServer(["--audio", "--frames", "18000"])
        defer { camera.stop() }
        let server = try await relay(camera.url, port: 0)
        let url = "rtsp://127.0.0.1:\(try #require(server.port))/camera"
        let probe = try await runProgram(
            "/usr/bin/ffprobe",
            ["-v", "error", "-rtsp_transport", "tcp", "-show_entries", "stream=codec_name", "-of", "csv=p=0", url])
        #expect(probe.stdout.split(separator: "\n").sorted() == ["aac", "h264", "pcm_mulaw"], "\(probe.all)")
        let play = try await runProgram(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-rtsp_transport", "udp", "-i", url, "-map", "0", "-t", "3", "-f", "null", "-"])
        // FFmpeg says this of the camera's own stream too (played directly): its timestamps, not a fault here.
        let faults = play.stderr.split(separator: "\n").filter { !$0.contains("non monotonically increasing dts") }
        #expect(play.status == 0 && faults.isEmpty, "\(play.stderr)")
        await server.stop()
    }

    /// The browser example: gst-rtsp-server's camera relayed, played by headless Chromium from the printed page
    /// (its H.264 decoded at the camera's size) while FFmpeg reads the same source over RTSP.
    @Test func theBrowserExampleRuns() async throws {
        // Two minutes of camera: its stream starts when the relay connects, and on a busy machine Chromium took
        // longer than 30 s to start (the source had ended, so the browser was answered and sent nothing).
        let camera = try await RealServer(["--audio", "--frames", "3600"])
        defer { camera.stop() }
        let (rtsp, browsers) = try await relayToBrowsers(camera.url, rtspPort: 0, httpPort: 0)
        let page = "http://127.0.0.1:\(try #require(browsers.httpPort))/camera/"
        async let probe = runProgram(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-rtsp_transport", "tcp", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                "rtsp://127.0.0.1:\(try #require(rtsp.port))/camera",
            ])
        let played = try await WebRTCBrowserTests.play(page, seconds: 4)
        let video = try #require(played.tracks?.first { $0.kind == "video" }, "\(played)")
        #expect(video.codec == "video/H264" && video.frameWidth == 320 && video.framesDecoded >= 30, "\(video)")
        #expect(try await probe.stdout.split(separator: "\n").sorted() == ["aac", "h264", "pcm_mulaw"])
        await browsers.stop()
        await rtsp.stop()
    }

    /// The talking example: gst-rtsp-server's camera with a G.711 backchannel relayed; Chromium opens the page with
    /// `?talk`, its microphone playing a 440 Hz tone, and the camera decodes the tone.
    @Test func theTalkingExampleRuns() async throws {
        let wav = try await BackchannelTests.tone(seconds: 10, rate: 48_000)
        defer { try? FileManager.default.removeItem(at: wav) }
        let heard = BackchannelTests.temporary("readme-heard.raw")
        defer { try? FileManager.default.removeItem(at: heard) }
        let camera = try await RealServer(["--backchannel", heard.path, "--frames", "3600"])
        defer { camera.stop() }
        let browsers = try await relayToBrowsersWithTalk(camera.url, httpPort: 0)
        let page = "http://127.0.0.1:\(try #require(browsers.httpPort))/camera/?talk"
        let played = try await WebRTCBrowserTests.play(page, seconds: 4, microphone: wav.path)
        #expect(played.error == nil && played.state == "connected", "\(played)")
        let bytes = try await BackchannelTests.heard(heard, atLeast: 8000 * 2)
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map { Double($0) }
        let tone = WebRTCBrowserTests.power(samples, at: 440, rate: 8000)
        let other = WebRTCBrowserTests.power(samples, at: 1000, rate: 8000)
        #expect(samples.count >= 8000 && tone > 20 * other, "\(samples.count) samples, 440 Hz \(tone), 1 kHz \(other)")
        await browsers.stop()
    }

    /// The error example tells a refused password by its code and keeps the sentence, without the password.
    @Test func theErrorExampleReadsTheSentence() async throws {
        let source = try MediaSource(video: .h264)
        var configuration = RTSPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.authentication = ServerAuthentication(users: [Credentials(user: "viewer", password: "right-one")])
        let server = RTSPServer(configuration: configuration)
        server.mount(source, at: "/live")
        try await server.start()
        let port = try #require(server.port)
        let said = try #require(await connectSaying("rtsp://viewer:s3cr3tpw@127.0.0.1:\(port)/live"))
        #expect(said.hasPrefix("wrong user or password: "), "\(said)")
        #expect(said.count > "wrong user or password: ".count + 10)
        #expect(!said.contains("s3cr3tpw"))
        await server.stop()
    }
}
