import Foundation
import H26x
import MP4
import MediaPipeline
import RTP
import RTSP
import RTSPClient
import RTSPServer
import TestSupport
import Testing

/// A recording served back on demand (`RTSPServer.mount(_:at:)` of an `MP4FileReader`): FFmpeg plays it whole and
/// decodes what the file holds, frame for frame; this library's client asks a range and gets the pictures from the
/// keyframe at or before it, placed in the recording by the answer's Range and RTP-Info; requests a recording
/// cannot serve are refused with a clear RTSP status.
@Suite struct RecordingServerTests {
    /// A 6 s H.264 recording by FFmpeg (25 fps, a keyframe every second, no B-frames), fragmented; with
    /// `["-write_prft", "pts"]`, its `prft` boxes give it a wall clock: 1970-01-01T00:00:00Z plus its time in the file.
    static func recording(_ extra: [String] = []) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString).mp4").path
        let run = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "6", "-c:v", "libx264",
                "-g", "25", "-bf", "0", "-pix_fmt", "yuv420p", "-movflags",
                "frag_keyframe+empty_moov+default_base_moof",
            ] + extra + [file])
        #expect(run.status == 0, "\(run.stderr)")
        return file
    }

    static func server(serving file: String) async throws -> (RTSPServer, Int) {
        let server = RTSPServer(configuration: .init(host: "127.0.0.1", port: 0))
        try server.mount(try MP4FileReader(path: file), at: "/rec")
        try await server.start()
        return (server, try #require(server.port))
    }

    /// FFmpeg's frame MD5s of the recording played over RTSP equal those of the file read directly: every picture,
    /// in order, bit for bit.
    @Test(arguments: ["tcp", "udp"]) func ffmpegDecodesTheRecordingFrameForFrame(transport: String) async throws {
        let file = try await Self.recording()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (server, port) = try await Self.server(serving: file)
        let direct = try await runProgram("/usr/bin/ffmpeg", ["-v", "error", "-i", file, "-f", "framemd5", "-"])
        let served = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-rtsp_transport", transport, "-i", "rtsp://127.0.0.1:\(port)/rec", "-f", "framemd5",
                "-",
            ])
        await server.stop()
        func hashes(_ text: String) -> [Substring] {
            text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }
        }
        #expect(hashes(direct.stdout).count == 150)
        #expect(hashes(served.stdout) == hashes(direct.stdout), "\(served.stderr)")
    }

    /// `rtpdump serve FILE.mp4` of a plain file with B-frames (its moov first), played by GStreamer's rtspsrc: the
    /// SHA-1 of each I420 picture GStreamer decodes equals that of the picture FFmpeg decodes from the file.
    @Test func gstreamerDecodesARecordingServedByRtpdumpFrameForFrame() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("plain-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let made = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "4", "-c:v", "libx264",
                "-g", "25", "-bf", "2", "-pix_fmt", "yuv420p", "-movflags", "+faststart", file,
            ])
        #expect(made.status == 0, "\(made.stderr)")
        let served = try await ServeCommandTests.Served(file, ["--path", "/rec"])
        let played = try await runProgram(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "rtspsrc", "location=\(served.url)", "protocols=tcp", "!", "rtph264depay", "!", "avdec_h264", "!",
                "videoconvert", "!", "video/x-raw,format=I420", "!", "checksumsink",
            ])
        let gstreamers = played.stdout.split(separator: "\n").compactMap {
            $0.split(separator: " ").last.map(String.init)
        }
        let ffmpegs = try await Self.pictureHashes(of: file)
        #expect(ffmpegs.count == 100)
        #expect(gstreamers == ffmpegs, "\(played.stderr)")
    }

    /// GStreamer's rtspsrc in ONVIF mode (its requests carry Require: onvif-replay, which a path without it answers
    /// with 551) plays the server's recording whole: each picture's SHA-1 that of FFmpeg's decode of the file.
    @Test func gstreamerInONVIFModePlaysTheRecordingFrameForFrame() async throws {
        let file = try await Self.recording(["-write_prft", "pts"])
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (server, port) = try await Self.server(serving: file)
        let played = try await runProgram(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "rtspsrc", "location=rtsp://127.0.0.1:\(port)/rec", "onvif-mode=true", "protocols=tcp", "!",
                "rtph264depay", "!", "avdec_h264", "!", "videoconvert", "!", "video/x-raw,format=I420", "!",
                "checksumsink",
            ])
        await server.stop()
        let gstreamers = played.stdout.split(separator: "\n").compactMap {
            $0.split(separator: " ").last.map(String.init)
        }
        let ffmpegs = try await Self.pictureHashes(of: file)
        #expect(ffmpegs.count == 150)
        #expect(gstreamers == ffmpegs, "\(played.stderr)")
    }

    /// GStreamer's rtspsrc seeks as a player's seek bar does (a flushing seek to 3.5 s: PAUSE, then PLAY with
    /// `Range: npt=3.5-`): the pictures it decodes after the seek are the recording's from the 3 s keyframe to the
    /// end, each equal to FFmpeg's decode of the file. A new PLAY of a session goes on with its RTP streams (SSRC,
    /// sequence): rtspsrc links one pad per SSRC, and a new one after the seek stopped it ("not-linked").
    @Test func gstreamerSeeksToTheKeyframeAtOrBeforeTheTime() async throws {
        let file = try await Self.recording()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (server, port) = try await Self.server(serving: file)
        let script = RealServer.root.appendingPathComponent("Fixtures/scripts/gst-seek.py").path
        let played = try await runProgram("/usr/bin/python3", [script, "rtsp://127.0.0.1:\(port)/rec", "3.5"])
        await server.stop()
        #expect(played.status == 0, "\(played.stderr)")
        let ffmpegs = try await Self.pictureHashes(of: file)
        #expect(ffmpegs.count == 150)
        let gstreamers = played.stdout.split(separator: "\n").map(String.init)
        #expect(gstreamers == Array(ffmpegs[75...]), "\(gstreamers.count) pictures; \(played.stderr)")
    }

    /// The SHA-1 of each 320x240 I420 picture FFmpeg decodes from `file`.
    static func pictureHashes(of file: String) async throws -> [String] {
        let script = """
            import hashlib, subprocess, sys
            command = ["ffmpeg", "-v", "error", "-i", sys.argv[1], "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]
            raw = subprocess.run(command, capture_output=True, check=True).stdout
            size = 320 * 240 * 3 // 2
            print("\\n".join(hashlib.sha1(raw[i:i + size]).hexdigest() for i in range(0, len(raw), size)))
            """
        let direct = try await runProgram("/usr/bin/python3", ["-c", script, file])
        #expect(direct.status == 0, "\(direct.stderr)")
        return direct.stdout.split(separator: "\n").map(String.init)
    }

    /// A recording with AAC or Opus beside its video: FFmpeg over RTSP gets the file's audio packets byte for byte
    /// (their MD5s, copied, not decoded: a player decoding the file skips the encoder's priming by its edit list) and
    /// decodes its pictures as from the file.
    @Test(arguments: ["aac", "libopus"])
    func audioIsServedFrameForFrameBesideTheVideo(encoder: String) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(encoder)-\(UUID().uuidString).mp4")
            .path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let made = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000", "-t", "4", "-c:v", "libx264", "-g", "25", "-bf", "0",
                "-pix_fmt", "yuv420p", "-c:a", encoder, "-movflags", "+faststart", file,
            ])
        #expect(made.status == 0, "\(made.stderr)")
        let (server, port) = try await Self.server(serving: file)
        let url = "rtsp://127.0.0.1:\(port)/rec"
        func lines(_ arguments: [String]) async throws -> [Substring] {
            let run = try await runProgram("/usr/bin/ffmpeg", ["-v", "error"] + arguments + ["-f", "framemd5", "-"])
            #expect(run.status == 0, "\(run.stderr)")
            // stream, dts, pts, duration, size, hash (and side data's, such as the priming frame's skip count)
            return run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
                let fields = $0.split(separator: ",")
                return fields.count > 5 ? fields[5] : nil
            }
        }
        let fileAudio = try await lines(["-i", file, "-map", "0:a", "-c", "copy"])
        let servedAudio = try await lines(["-rtsp_transport", "tcp", "-i", url, "-map", "0:a", "-c", "copy"])
        let fileVideo = try await lines(["-i", file, "-map", "0:v"])
        let servedVideo = try await lines(["-rtsp_transport", "tcp", "-i", url, "-map", "0:v"])
        await server.stop()
        #expect(fileAudio.count > 180, "4 s of 1024-sample AAC frames at 48 kHz, or of 20 ms Opus packets")
        #expect(servedAudio == fileAudio)
        #expect(fileVideo.count == 100 && servedVideo == fileVideo)
    }

    /// A PLAY from 3.5 s starts at the keyframe of 3 s: the first picture is a keyframe, the answer's Range says
    /// 3 s, and every picture's position (RTP-Info and Range) is its time in the file, 3 s to the end.
    @Test func aRangeStartsAtTheKeyframeAtOrBeforeIt() async throws {
        let file = try await Self.recording()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (server, port) = try await Self.server(serving: file)
        var options = RTSPSessionOptions()
        options.playback = PlaybackRequest(range: .npt(start: 3.5, end: nil))
        let session = try await RTSPSession.connect(to: "rtsp://127.0.0.1:\(port)/rec", options: options)
        let timeline = await session.timeline()
        guard case .npt(let start, let end)? = timeline.start else {
            Issue.record("the answer's range: \(String(describing: timeline.start))")
            return
        }
        #expect(abs(start - 3) < 0.001)
        #expect(abs((end ?? 0) - 6) < 0.05)
        var positions: [Double] = []
        var keyframes: [Bool] = []
        for try await unit in try session.accessUnits() {
            guard
                case .npt(let seconds)? = timeline.position(
                    track: 0, rtpTimestamp: UInt32(truncatingIfNeeded: unit.timestamp))
            else { continue }
            positions.append(seconds)
            keyframes.append(unit.isKeyframe)
        }
        await server.stop()
        #expect(positions.count == 75, "3 s of 25 fps")
        #expect(keyframes.first == true)
        for (i, position) in positions.enumerated() {
            #expect(abs(position - (3 + Double(i) / 25)) < 0.001, "picture \(i) at \(position) s")
        }
    }

    /// This library's replay client against its playback server: a clock range in the recording (its prft wall
    /// clock, FFmpeg's) gives the pictures from the keyframe at or before it, each dated with the time it was recorded.
    @Test func ourReplayClientGetsThePicturesFromAClockTimeDatedAsRecorded() async throws {
        let file = try await Self.recording(["-write_prft", "pts"])
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (server, port) = try await Self.server(serving: file)
        var options = RTSPSessionOptions()
        let asked = WallClockTime(ntp: (WallClockTime.unixEpochOffset << 32) + (7 << 31))  // 00:00:03.5
        options.playback = PlaybackRequest(range: .clock(start: asked, end: nil), onvifReplay: true)
        let session = try await RTSPSession.connect(to: "rtsp://127.0.0.1:\(port)/rec", options: options)
        var times: [Double] = []
        var keyframes: [Bool] = []
        for try await unit in try session.accessUnits() {
            times.append(unit.captureTime?.secondsSince1970 ?? -1)
            keyframes.append(unit.isKeyframe)
        }
        await server.stop()
        #expect(times.count == 75, "from the 3 s keyframe to the end")
        #expect(keyframes.first == true)
        for (i, time) in times.enumerated() {
            #expect(abs(time - (3 + Double(i) / 25)) < 0.001, "picture \(i) dated \(time)")
        }
    }

    /// Packets of a PLAY with `Require: onvif-replay`, read off the connection: each picture's first packet carries
    /// the 0xABAC extension with its recording time, C on the keyframes, D on the first alone, E on the last alone,
    /// and the PLAY's CSeq; the other packets carry none.
    @Test func eachPicturesFirstPacketCarriesTheReplayExtension() async throws {
        let file = try await Self.recording(["-write_prft", "pts"])
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (server, port) = try await Self.server(serving: file)
        let packets = try await Self.packets(port: port, play: ["Range: npt=4-", "Require: onvif-replay"])
        await server.stop()
        let replays = packets.map { ONVIFReplayExtension($0) }
        let firsts = packets.indices.filter { $0 == 0 || packets[$0 - 1].marker }
        #expect(firsts.count == 50, "4 s to 6 s at 25 fps")
        #expect(packets.indices.allSatisfy { (replays[$0] != nil) == firsts.contains($0) })
        let marked = firsts.compactMap { replays[$0] }
        for (i, replay) in marked.enumerated() {
            #expect(abs(replay.recordedTime.secondsSince1970 - (4 + Double(i) / 25)) < 0.001)
            #expect(replay.isCleanPoint == (i % 25 == 0), "picture \(i)")
            #expect(replay.isDiscontinuity == (i == 0))
            #expect(replay.isEnd == (i == marked.count - 1))
            #expect(replay.cseq == 2)
        }
    }

    /// Scale -1: the video keyframes at or before the start, in falling recording time (each with its recording
    /// time), their RTP time rising; no audio.
    @Test func backwardsGivesTheKeyframesInFallingTime() async throws {
        let file = try await Self.recording(["-write_prft", "pts"])
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (server, port) = try await Self.server(serving: file)
        var options = RTSPSessionOptions()
        options.playback = PlaybackRequest(range: .npt(start: 3.5, end: nil), scale: -4, onvifReplay: true)
        let session = try await RTSPSession.connect(to: "rtsp://127.0.0.1:\(port)/rec", options: options)
        var units: [AccessUnit] = []
        for try await unit in try session.accessUnits() { units.append(unit) }
        await server.stop()
        let times = units.map { $0.captureTime?.secondsSince1970 ?? -1 }
        #expect(times.count == 4 && zip(times, [3.0, 2, 1, 0]).allSatisfy { abs($0 - $1) < 0.001 }, "\(times)")
        #expect(units.allSatisfy { $0.isKeyframe })
        #expect(zip(units, units.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }

    /// `Rate-Control: no`: the whole recording as fast as the client reads, every picture of it (6 s of it in much
    /// less than 6 s: paced, it could not come before the last picture's time).
    @Test func withoutRateControlTheRecordingComesAsFastAsItIsRead() async throws {
        let file = try await Self.recording()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (server, port) = try await Self.server(serving: file)
        var options = RTSPSessionOptions()
        options.playback = PlaybackRequest(rateControl: false)
        let started = ContinuousClock.now
        let session = try await RTSPSession.connect(to: "rtsp://127.0.0.1:\(port)/rec", options: options)
        var count = 0
        for try await _ in try session.accessUnits() { count += 1 }
        let took = ContinuousClock.now - started
        await server.stop()
        #expect(count == 150)
        #expect(took < .seconds(5), "\(took)")
    }

    /// Whether an RTCP compound packet holds a BYE (packet type 203), walking its packets by their lengths.
    static func hasGoodbye(_ compound: [UInt8]) -> Bool {
        var offset = 0
        while offset + 4 <= compound.count {
            if compound[offset + 1] == 203 { return true }
            offset += (Int(compound[offset + 2]) << 8 | Int(compound[offset + 3]) + 1) * 4
        }
        return false
    }

    /// `Speed: 4`: delivered four times as fast, and only the pace changes (RFC 2326 section 12.35): each picture's
    /// RTP time still places it at its own time in the recording, and the answer says the speed.
    @Test func speedDeliversFasterWithTheRecordingsOwnTimes() async throws {
        let file = try await Self.recording()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (server, port) = try await Self.server(serving: file)
        var options = RTSPSessionOptions()
        options.playback = PlaybackRequest(speed: 4)
        let started = ContinuousClock.now
        let session = try await RTSPSession.connect(to: "rtsp://127.0.0.1:\(port)/rec", options: options)
        let timeline = await session.timeline()
        var positions: [Double] = []
        for try await unit in try session.accessUnits() {
            if case .npt(let seconds)? = timeline.position(
                track: 0, rtpTimestamp: UInt32(truncatingIfNeeded: unit.timestamp))
            {
                positions.append(seconds)
            }
        }
        let took = ContinuousClock.now - started
        await server.stop()
        #expect(positions.count == 150)
        for (i, position) in positions.enumerated() {
            #expect(abs(position - Double(i) / 25) < 0.001, "picture \(i) at \(position) s")
        }
        #expect(took < .seconds(5), "a 6 s recording at speed 4: \(took)")
    }

    /// The RTP packets of track 0 a PLAY with `play`'s headers sends over a hand-made TCP session, until its BYE.
    static func packets(port: Int, play: [String]) async throws -> [RTPPacket] {
        let peer = try await HostilePeer(port: port, reads: true)
        defer { Task { await peer.close() } }
        let url = "rtsp://127.0.0.1:\(port)/rec"
        try await peer.send(
            "SETUP \(url)/trackID=0 RTSP/1.0\r\nCSeq: 1\r\nTransport: RTP/AVP/TCP;unicast;interleaved=0-1\r\n\r\n")
        var session: Substring?
        for _ in 0..<250 where session == nil {
            session =
                peer.text.split(separator: "\r\n").first { $0.hasPrefix("Session: ") }?.dropFirst(9)
                .split(separator: ";").first
            if session == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let extra = play.map { $0 + "\r\n" }.joined()
        try await peer.send("PLAY \(url) RTSP/1.0\r\nCSeq: 2\r\nSession: \(session ?? "")\r\n\(extra)\r\n")
        var packets: [RTPPacket] = []
        for _ in 0..<1000 {
            // Interleaved frames ($, channel, length) between RTSP answers; the RTCP channel's BYE ends it.
            let bytes = peer.bytes
            var index = 0
            var sawBye = false
            packets = []
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "$") {
                    guard index + 4 <= bytes.count else { break }
                    let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                    guard index + 4 + length <= bytes.count else { break }
                    let frame = Array(bytes[(index + 4)..<(index + 4 + length)])
                    if bytes[index + 1] == 0, let packet = try? RTPPacket(frame) { packets.append(packet) }
                    if bytes[index + 1] == 1 { sawBye = sawBye || Self.hasGoodbye(frame) }
                    index += 4 + length
                } else {
                    let rest = bytes[index...]
                    guard
                        let end = rest.indices.first(where: { i in
                            i + 3 < bytes.count && bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13
                                && bytes[i + 3] == 10
                        })
                    else { break }
                    index = end + 4
                }
            }
            if sawBye { return packets }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("no BYE after \(packets.count) packets")
        return packets
    }

    /// Requests a recording cannot serve: a range past its end, a range that does not read (a year past NTP's era),
    /// a scale of 0 or of a billion: each refused with its status, and the session still plays afterwards.
    @Test func requestsItCannotServeAreRefusedWithTheirStatus() async throws {
        let file = try await Self.recording()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (server, port) = try await Self.server(serving: file)
        // A session set up by hand, then PLAY with the headers given: the status of its answer.
        func play(_ headers: [String]) async throws -> String {
            let peer = try await HostilePeer(port: port, reads: true)
            defer { Task { await peer.close() } }
            let url = "rtsp://127.0.0.1:\(port)/rec"
            try await peer.send(
                "SETUP \(url)/trackID=0 RTSP/1.0\r\nCSeq: 1\r\nTransport: RTP/AVP/TCP;unicast;interleaved=0-1\r\n\r\n")
            func answer(_ cseq: Int) async throws -> Substring {
                for _ in 0..<250 {
                    if let found = peer.text.split(separator: "RTSP/1.0 ").first(where: {
                        $0.contains("CSeq: \(cseq)\r\n")
                    }) {
                        return found
                    }
                    try await Task.sleep(for: .milliseconds(20))
                }
                Issue.record("no answer to request \(cseq): \(peer.text)")
                return ""
            }
            let setup = try await answer(1)
            let session =
                setup.split(separator: "\r\n").first { $0.hasPrefix("Session: ") }?.dropFirst(9)
                .split(separator: ";").first ?? ""
            let extra = headers.map { $0 + "\r\n" }.joined()
            try await peer.send("PLAY \(url) RTSP/1.0\r\nCSeq: 2\r\nSession: \(session)\r\n\(extra)\r\n")
            return String(try await answer(2).prefix(3))
        }
        #expect(try await play(["Range: npt=1000-"]) == "457")
        #expect(try await play(["Range: clock=99991231T000000Z-"]) == "457")
        #expect(try await play(["Range: npt=abc-"]) == "457")
        #expect(try await play(["Scale: 0"]) == "400")
        #expect(try await play(["Scale: 1e9"]) == "400")
        #expect(try await play(["Range: npt=2-", "Scale: 2"]) == "200")
        // DESCRIBE gives the recording's length (a=range): FFmpeg reads it as the input's duration.
        let probed = try await runProgram(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-rtsp_transport", "tcp", "-show_entries", "format=duration", "-of", "csv=p=0",
                "rtsp://127.0.0.1:\(port)/rec",
            ])
        #expect(
            Double(probed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).map { abs($0 - 6) < 0.05 } == true,
            "\(probed.stdout) \(probed.stderr)")
        await server.stop()
    }

    /// A copy of `file` whose `prft` wall clock is `seconds` later (its media unchanged): the same camera's next file
    /// of a recording, after a gap.
    static func later(_ file: String, by seconds: UInt64, to copy: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8 else { break }
            if bytes[(offset + 4)..<(offset + 8)].elementsEqual("prft".utf8), offset + 24 <= bytes.count {
                // size, type, version and flags, track ID, then the 64-bit NTP time.
                let ntp =
                    bytes[(offset + 16)..<(offset + 24)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } + seconds << 32
                for i in 0..<8 { bytes[offset + 16 + i] = UInt8(truncatingIfNeeded: ntp >> (56 - 8 * i)) }
            }
            offset += size
        }
        try Data(bytes).write(to: URL(fileURLWithPath: copy))
    }

    /// A recording in two files with a gap between (front.mp4 recorded 00:00:00 to 00:00:04, front-00002.mp4 from
    /// 00:00:06 to 00:00:10, by their prft wall clocks) is one timeline at /rec/front: a clock time in the second
    /// file starts there, one in the gap starts at the second file and the answer's Range says so, one in the first
    /// plays on into the second; the timeline's npt runs through both without the gap.
    @Test func aRecordingsFilesAreOneTimeline() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await Self.recording(["-t", "4", "-write_prft", "pts"])
        try FileManager.default.moveItem(atPath: first, toPath: directory.appendingPathComponent("front.mp4").path)
        try Self.later(
            directory.appendingPathComponent("front.mp4").path, by: 6,
            to: directory.appendingPathComponent("front-00002.mp4").path)
        let server = RTSPServer(configuration: .init(host: "127.0.0.1", port: 0))
        try server.mount(recordingsIn: directory.path, at: "/rec")
        try await server.start()
        let url = "rtsp://127.0.0.1:\(try #require(server.port))/rec/front"
        func clock(_ seconds: Double) -> WallClockTime {
            WallClockTime(ntp: (WallClockTime.unixEpochOffset << 32) + UInt64(seconds * 4_294_967_296))
        }
        /// The answer's range, and each picture's recording time (seconds since 1970), of a play of `range`.
        func play(_ range: PlaybackRequest.Range) async throws -> (PlaybackRequest.Range?, [Double]) {
            var options = RTSPSessionOptions()
            options.playback = PlaybackRequest(range: range, onvifReplay: true)
            let session = try await RTSPSession.connect(to: url, options: options)
            let start = await session.timeline().start
            var times: [Double] = []
            for try await unit in try session.accessUnits() { times.append(unit.captureTime?.secondsSince1970 ?? -1) }
            return (start, times)
        }
        func expect(_ times: [Double], from start: Double, count: Int, _ comment: Comment) {
            #expect(times.count == count, comment)
            for (i, time) in times.prefix(count).enumerated() {
                let expected = start + Double(i) / 25
                #expect(abs(time - expected) < 0.001, "\(comment): picture \(i) dated \(time), not \(expected)")
            }
        }
        let (inSecond, second) = try await play(.clock(start: clock(7.5), end: nil))
        #expect(inSecond == .npt(start: 5, end: 8), "the second file's 1 s keyframe, 4 s into the timeline")
        expect(second, from: 7, count: 75, "from 00:00:07.5")
        let (inGap, fromGap) = try await play(.clock(start: clock(5), end: nil))
        #expect(inGap == .npt(start: 4, end: 8), "the gap: the play starts at the next file")
        expect(fromGap, from: 6, count: 100, "from 00:00:05")
        let (_, across) = try await play(.clock(start: clock(2.5), end: nil))
        expect(Array(across.prefix(50)), from: 2, count: 50, "from 00:00:02.5, the first file")
        expect(Array(across.dropFirst(50)), from: 6, count: 100, "then the second")
        let (byNPT, fromNPT) = try await play(.npt(start: 5, end: nil))
        #expect(byNPT == .npt(start: 5, end: 8), "npt through both files: 4 s, then 4 s more")
        expect(fromNPT, from: 7, count: 75, "from npt 5")
        await server.stop()
    }

    /// A directory of recordings: each NAME.mp4 plays at /rec/NAME (and /rec/NAME.mp4); nothing outside the directory
    /// is served, however the path is written (a parent, an encoded parent, a hidden file, a link out of it, a
    /// sub-directory), each 404.
    @Test func aDirectoryServesItsRecordingsAndNothingOutsideIt() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("recordings-\(UUID().uuidString)")
        let inside = root.appendingPathComponent("served")
        let outside = root.appendingPathComponent("private")
        try FileManager.default.createDirectory(
            at: inside.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let recording = try await Self.recording()
        try FileManager.default.moveItem(atPath: recording, toPath: inside.appendingPathComponent("front.mp4").path)
        for copy in [
            outside.appendingPathComponent("secret.mp4"), inside.appendingPathComponent(".hidden.mp4"),
            inside.appendingPathComponent("sub/deep.mp4"),
        ] {
            try FileManager.default.copyItem(at: inside.appendingPathComponent("front.mp4"), to: copy)
        }
        try FileManager.default.createSymbolicLink(
            at: inside.appendingPathComponent("link.mp4"),
            withDestinationURL: outside.appendingPathComponent("secret.mp4"))
        let server = RTSPServer(configuration: .init(host: "127.0.0.1", port: 0))
        try server.mount(recordingsIn: inside.path, at: "/rec")
        try await server.start()
        let port = try #require(server.port)
        func describe(_ path: String) async throws -> String {
            let peer = try await HostilePeer(port: port, reads: true)
            defer { Task { await peer.close() } }
            try await peer.send("DESCRIBE rtsp://127.0.0.1:\(port)\(path) RTSP/1.0\r\nCSeq: 1\r\n\r\n")
            for _ in 0..<250 where !peer.text.contains("\r\n\r\n") { try await Task.sleep(for: .milliseconds(20)) }
            return String(peer.text.dropFirst("RTSP/1.0 ".count).prefix(3))
        }
        #expect(try await describe("/rec/front") == "200")
        #expect(try await describe("/rec/front.mp4") == "200")
        for hostile in [
            "/rec/../private/secret", "/rec/..%2Fprivate%2Fsecret", "/rec/%2e%2e/private/secret", "/rec/.hidden",
            "/rec/link", "/rec/sub/deep", "/rec/sub", "/rec/missing", "/rec/", "/private/secret",
        ] {
            #expect(try await describe(hostile) == "404", "\(hostile)")
        }
        // And it plays: FFmpeg decodes the 150 pictures of /rec/front.
        let played = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-rtsp_transport", "tcp", "-i", "rtsp://127.0.0.1:\(port)/rec/front", "-f", "framemd5",
                "-",
            ])
        #expect(played.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 150, "\(played.stderr)")
        await server.stop()
    }
}
