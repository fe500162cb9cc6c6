import MP4
import PacketCapture
import RTPDumpCore
import SDP
import Foundation
import TestSupport
import Testing

/// `rtpdump record`: captures recorded to fragmented MP4, judged by FFmpeg reading the files. The frames
/// FFmpeg decodes from the file are those `rtpdump decode --md5` decodes from the capture (which other tests
/// hold to GStreamer's and FFmpeg's own references), in presentation order, B-frames included; the audio
/// FFmpeg decodes from the file is the PCM FFmpeg decodes from GStreamer's depayloaded stream.
@Suite(.enabled(if: RTPDumpBinary.present)) struct RecordCommandTests {
    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString)-\(name)").path
    }

    /// The picture MD5s `rtpdump decode --md5` prints.
    static func decodedMD5s(_ arguments: [String]) async throws -> [String] {
        let run = try await RTPDumpBinary.run(["decode"] + arguments + ["--md5"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
    }

    /// FFmpeg's frames of a file as I420 MD5s (`-f framemd5`), and their presentation times.
    /// JPEG pictures stay full range (`yuvj420p`), as `rtpdump decode` keeps them.
    static func ffmpegFrames(_ path: String, pixelFormat: String = "yuv420p") async throws -> (
        md5s: [String], times: [Int]
    ) {
        let run = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-i", path, "-map", "0:v:0", "-pix_fmt", pixelFormat,
                "-f", "framemd5", "-",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return (lines.compactMap(\.last), lines.compactMap { $0.count > 2 ? Int($0[2]) : nil })
    }

    /// What ffprobe says of a file's streams: codec names, in order.
    static func codecs(_ path: String) async throws -> [String] {
        let run = try await runProgram(
            "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", path])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test(arguments: ["h264-ffmpeg.pcap", "h265-ffmpeg-ipv6.pcapng", "h264-gst.pcap", "mjpeg-420-gst.pcap"])
    func ffmpegDecodesTheRecordingAsRtpdumpDecodesTheCapture(capture: String) async throws {
        let output = Self.temporary("out.mp4")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try await RTPDumpBinary.run(["record", Fixtures.capture(capture), "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try await Self.decodedMD5s([Fixtures.capture(capture)])
        let recorded = try await Self.ffmpegFrames(
            output, pixelFormat: capture.hasPrefix("mjpeg") ? "yuvj420p" : "yuv420p")
        #expect(expected.count >= 20)
        #expect(recorded.md5s == expected)
        #expect(recorded.times == recorded.times.sorted(), "presentation order: \(recorded.times)")
    }

    /// Audio as its SDP describes it: FFmpeg decodes from the file the samples it decodes from GStreamer's
    /// depayloaded stream (`AudioFileTests`' references), sample for sample.
    @Test(arguments: [
        "audio-aac-gst", "audio-aac-ffmpeg", "audio-latm-gst", "audio-opus-gst", "audio-opus-ffmpeg", "audio-pcmu-gst",
        "audio-pcma-gst", "audio-l16-gst",
    ])
    func ffmpegDecodesTheRecordedAudioAsTheSendersStream(capture: String) async throws {
        let output = Self.temporary("out.mp4")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try await RTPDumpBinary.run(
            ["record", Fixtures.capture(capture + ".pcap"), "--sdp", Fixtures.capture(capture + ".sdp"), "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await AudioFileTests.ffmpegPCM(output) == AudioFileTests.reference(capture))
    }

    /// A captured RTSP session: its SDP says what each track is; G.726 and G.722, which MP4 players do not
    /// take, are left out with the reason, and the video is recorded.
    @Test func aSessionCaptureRecordsWhatMP4CarriesAndSaysWhatItLeavesOut() async throws {
        let output = Self.temporary("out.mp4")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let capture = Fixtures.capture("rtsp-payloads-tcp.pcap")
        let run = try await RTPDumpBinary.run(["record", capture, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("G726-32 has no MP4 sample entry"), "\(run.stderr)")
        #expect(run.stderr.contains("G722 has no MP4 sample entry"), "\(run.stderr)")
        #expect(try await Self.codecs(output) == ["h264"])
        #expect(try await Self.ffmpegFrames(output).md5s == (try await Self.decodedMD5s([capture])))
    }

    /// `--segment-seconds 1` over a 3 s capture with a keyframe a second: three files, each starting with a
    /// keyframe and decoding alone; their frames, one file after the other, are the whole capture's.
    @Test func segmentsStartAtKeyframesAndPlayAlone() async throws {
        let output = Self.temporary("out.mp4")
        let capture = Fixtures.capture("h264-ffmpeg.pcap")
        let run = try await RTPDumpBinary.run(["record", capture, "-o", output, "--segment-seconds", "1"])
        let files = run.stdout.split(separator: "\n").map(String.init)
        defer { for file in files { try? FileManager.default.removeItem(atPath: file) } }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(files == (1...3).map { output.replacingOccurrences(of: ".mp4", with: "-0000\($0).mp4") })
        var frames: [String] = []
        for file in files {
            let probe = try await runProgram(
                "/usr/bin/ffprobe",
                ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags", "-of", "csv=p=0", file])
            #expect(probe.stdout.hasPrefix("K"), "\(file)")
            frames += try await Self.ffmpegFrames(file).md5s
        }
        #expect(frames == (try await Self.decodedMD5s([capture])))
    }
}

/// `RecordingStreams` in process: an SDP's audio track whose first packets come after the first keyframe (a
/// camera whose audio starts late, a loaded machine) is in the recording all the same (a live recording
/// killed early once had its video alone: the audio track was added after the recording had started).
@Suite struct RecordingStreamsTests {
    @Test func audioThatStartsAfterTheFirstKeyframeIsRecorded() throws {
        var video = try CaptureFile(contentsOf: Fixtures.capture("h264-gst.pcap"))
        var audio = try CaptureFile(contentsOf: Fixtures.capture("audio-pcmu-gst.pcap"))
        let formats: [UInt8: MediaFormat] = [
            96: .video(VideoFormat(codec: .h264, payloadType: 96)),
            0: .audio(AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000)),
        ]
        var streams = RecordingStreams(formats: formats, configuration: .init())
        var initializations: [[UInt8]] = []
        var audioBytes = 0
        let emit = { (output: MP4Output) in
            if case .initialization(let bytes) = output { initializations.append(bytes) }
        }
        for _ in 0..<60 { if let datagram = try video.nextDatagram() { try streams.add(datagram, emit: emit) } }
        #expect(!initializations.isEmpty)  // the recording has started, before any audio
        while let datagram = try audio.nextDatagram() {
            audioBytes += datagram.payload.count
            try streams.add(datagram, emit: emit)
        }
        while let datagram = try video.nextDatagram() { try streams.add(datagram, emit: emit) }
        try streams.finish(emit: emit)
        let moov = String(decoding: try #require(initializations.first), as: UTF8.self)
        #expect(moov.components(separatedBy: "trak").count - 1 == 2)
        #expect(moov.contains("ulaw"))
        #expect(streams.statistics.audioSamples > 50)
        #expect(streams.streamsLeftOut.isEmpty)
        #expect(audioBytes > 0)
    }

    /// The disk fills mid-recording (a file-size limit, so that the write stops part-way through a fragment): the
    /// file is cut back to its last whole fragment, the run fails saying so, and FFmpeg reads every picture left
    /// without an error (they are the capture's first pictures). Before, the half-written fragment was left
    /// ("Invalid NAL unit size").
    @Test func aFullDiskLeavesTheFileAtItsLastWholeFragment() async throws {
        let output = RecordCommandTests.temporary("full.mp4")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let command =
            "trap '' XFSZ; ulimit -f 300; exec '\(RTPDumpBinary.path)' record '\(Fixtures.capture("h264-gst.pcap"))' "
            + "-o '\(output)' --fragment-seconds 0.5"
        let run = try await runProgram("/bin/bash", ["-c", command])
        #expect(run.status != 0)
        #expect(run.stderr.contains("was cut back to its last whole fragment"), "\(run.stderr)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
        #expect(size < 300 << 10)
        let decoded = try await runProgram(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", output, "-f", "framemd5", "-pix_fmt", "yuv420p", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
        let frames = decoded.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last
        }
        .map { $0.trimmingCharacters(in: .whitespaces) }
        let expected = try await RecordCommandTests.decodedMD5s([Fixtures.capture("h264-gst.pcap")])
        #expect(frames.count >= 10 && frames == Array(expected.prefix(frames.count)))
    }
}
