import Foundation
import TestSupport
import Testing

/// `rtpdump record` of a live gst-rtsp-server session with video, G.711 and AAC: files FFmpeg and GStreamer
/// play with every track, segments that each start at a keyframe, and a recording killed midway that plays
/// up to its last fragment.
@Suite(.serialized, .enabled(if: RTPDumpBinary.present)) struct RealServerRecordingTests {
    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)-\(name)").path
    }

    /// FFmpeg's streams of a file (codec names, sorted) and its decoding of every track.
    static func ffmpegReads(_ file: String) async throws -> (codecs: [String], videoFrames: Int, errors: String) {
        let probe = try await runProgram(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-count_frames", "-show_entries", "stream=codec_name,nb_read_frames", "-of", "csv=p=0",
                file,
            ])
        var codecs: [String] = []
        var videoFrames = 0
        for line in probe.stdout.split(separator: "\n") {
            let fields = line.split(separator: ",")
            codecs.append(String(fields.first ?? ""))
            if fields.first == "h264" { videoFrames = Int(fields.last ?? "") ?? 0 }
        }
        let decode = try await runProgram("/usr/bin/ffmpeg", ["-v", "error", "-i", file, "-f", "null", "-"])
        return (codecs.sorted(), videoFrames, decode.stderr + (decode.status == 0 ? "" : "exit \(decode.status)"))
    }

    /// GStreamer's decoding of the file's three tracks: buffers each decoder gave.
    static func gstreamerBuffers(_ file: String) async throws -> [String: Int] {
        let run = try await runProgram(
            "/usr/bin/gst-launch-1.0",
            [
                "-v", "filesrc", "location=\(file)", "!", "qtdemux", "name=d",
                "d.video_0", "!", "queue", "!", "decodebin", "!", "fakesink", "name=video", "silent=false",
                "d.audio_0", "!", "queue", "!", "decodebin", "!", "fakesink", "name=audio0", "silent=false",
                "d.audio_1", "!", "queue", "!", "decodebin", "!", "fakesink", "name=audio1", "silent=false",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        var buffers: [String: Int] = [:]
        for sink in ["video", "audio0", "audio1"] {
            buffers[sink] = run.stdout.components(separatedBy: "/GstFakeSink:\(sink): last-message = chain").count - 1
        }
        return buffers
    }

    // Load-exclusive: it runs a real server, FFmpeg and GStreamer, and loads the machine.
    @Test(.loadExclusive) func segmentsOfALiveSessionPlayAloneInFFmpegAndGStreamer() async throws {
        let server = try await RealServer(["--audio", "--frames", "300"])
        defer { server.stop() }
        let output = Self.temporary("out.mp4")
        let run = try await RTPDumpBinary.run(
            ["record", server.url, "-o", output, "--duration", "7", "--segment-seconds", "2"])
        let files = run.stdout.split(separator: "\n").map(String.init)
        defer { for file in files { try? FileManager.default.removeItem(atPath: file) } }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(files.count >= 3, "\(run.stderr)")
        for file in files {
            // The last segment runs to --duration's end, wall-clock time: on a loaded machine the server encodes
            // slower than real time and it holds less. The others are two seconds of the stream each.
            let whole = file != files.last
            let read = try await Self.ffmpegReads(file)
            #expect(read.codecs == ["aac", "h264", "pcm_mulaw"], "\(file)")
            #expect(read.videoFrames >= (whole ? 20 : 1), "\(file)")
            #expect(read.errors.isEmpty, "\(file): \(read.errors)")
            let first = try await runProgram(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags", "-read_intervals", "%+#1",
                    "-of", "csv=p=0", file,
                ])
            #expect(first.stdout.hasPrefix("K"), "\(file) starts with \(first.stdout)")
            let buffers = try await Self.gstreamerBuffers(file)
            // Every track plays in GStreamer: each whole segment holds 20 buffers of each at least; the last holds
            // its video (a loaded run's last segment, 0.6 s of pictures, had none of the G.711 the server had not
            // yet sent: its audio source, 20 ms buffers, falls behind under load, as its encoder does).
            #expect(buffers.count == 3, "\(file): \(buffers)")
            let least = whole ? buffers.values.min() ?? 0 : buffers["video"] ?? 0
            #expect(least >= (whole ? 20 : 1), "\(file): \(buffers)")
        }
    }

    /// SIGKILL 4 s into a recording: the file plays, in FFmpeg, up to its last whole fragment (a second of
    /// pictures at least; fragments close each second).
    @Test func aRecordingKilledMidwayPlaysUpToItsLastFragment() async throws {
        let server = try await RealServer(["--audio", "--frames", "600"])
        defer { server.stop() }
        let output = Self.temporary("killed.mp4")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: RTPDumpBinary.path)
        process.arguments = ["record", server.url, "-o", output]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try await Task.sleep(for: .seconds(4))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        let read = try await Self.ffmpegReads(output)
        #expect(read.codecs == ["aac", "h264", "pcm_mulaw"])
        #expect(read.videoFrames >= 30, "\(read)")
    }

    /// `record --pre-roll 2 --post-roll 1` of a live session, `start` on standard input 6 s in (the session playing
    /// for seconds by then, even on a loaded machine) and `stop` 2 s later:
    /// one file, from a keyframe, of the pre-roll (to the keyframe before it), the event and the post-roll, with the
    /// three tracks, which FFmpeg decodes; the command ends by itself once its input has and the post-roll is written.
    /// The bounds are loose where wall time meets media time (a loaded machine reads the session late); the
    /// recorder's exact arithmetic is EventRecorderTests'.
    @Test func anEventWithItsPreRollIsRecordedFromStandardInput() async throws {
        let server = try await RealServer(["--audio", "--frames", "900"])
        defer { server.stop() }
        let output = Self.temporary("event.mp4")
        let file = output.replacingOccurrences(of: ".mp4", with: "-00001.mp4")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let command =
            "(sleep 6; echo start; sleep 2; echo stop) | '\(RTPDumpBinary.path)' record '\(server.url)' -o '\(output)' "
            + "--pre-roll 2 --post-roll 1"
        let run = try await runProgram("/bin/sh", ["-c", command])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n") == [Substring(file)], "\(run.stdout)")
        #expect(run.stderr.contains(", 1 event(s)"), "\(run.stderr)")
        #expect(run.duration < .seconds(20))  // the stream lasts 30 s
        let read = try await Self.ffmpegReads(file)
        #expect(read.codecs == ["aac", "h264", "pcm_mulaw"] && read.errors.isEmpty, "\(read)")
        let first = try await runProgram(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v", "-show_entries", "packet=flags:format=duration", "-of",
                "csv=p=0",
                file,
            ])
        #expect(first.stdout.hasPrefix("K"), "\(first.stdout.prefix(40))")
        let duration = first.stdout.split(separator: "\n").last.flatMap { Double($0) } ?? 0
        #expect(duration >= 3 && duration <= 8, "\(duration) s: 2 to 3 of pre-roll, about 2 of event, 1 of post-roll")
        // Without an event nothing is written, and it says so.
        let none = try await runProgram(
            "/bin/sh", ["-c", "true | '\(RTPDumpBinary.path)' record '\(server.url)' -o '\(output)' --pre-roll 2"])
        #expect(none.status == 0 && none.stderr.contains("no event was started"), "\(none.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output) && none.stdout.isEmpty)
    }
}
