import Foundation
import TestSupport
import Testing
import VideoDecoding

/// `rtpdump extract -o OUT.aac|.opus|.wav` and `rtpdump decode --audio`: files players open, judged by FFmpeg.
/// Every audio capture's file, decoded by FFmpeg, must give the samples FFmpeg decodes from GStreamer's
/// depayloaded stream (`Fixtures/expected/*.ffmpeg-pcm.txt`, from `Fixtures/scripts/gst_audio_references.sh`);
/// an ADTS file must be, byte for byte, FFmpeg's `adts` muxer's writing of GStreamer's frames.
@Suite(.enabled(if: RTPDumpBinary.present)) struct AudioFileTests {
    static let captures: [(name: String, file: String)] = [
        ("audio-aac-gst", "aac"), ("audio-aac-ffmpeg", "aac"), ("audio-latm-gst", "aac"), ("audio-opus-gst", "opus"),
        ("audio-opus-ffmpeg", "opus"), ("audio-pcmu-gst", "wav"), ("audio-pcma-gst", "wav"), ("audio-l16-gst", "wav"),
    ]

    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("swift-rtp-\(UUID().uuidString)-\(name)").path
    }

    /// FFmpeg's decoding of a file: "<samples per channel> <channels> <md5 of s16le>", as the reference script
    /// writes it.
    static func ffmpegPCM(_ path: String) async throws -> String {
        let pcm = temporary("pcm.s16")
        defer { try? FileManager.default.removeItem(atPath: pcm) }
        let decoded = try await runProgram(
            "/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-i", path, "-f", "s16le", "-y", pcm])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let probe = try await runProgram(
            "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=channels", "-of", "csv=p=0", path])
        let channels = Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: pcm)))
        var digest = MD5()
        digest.update(bytes)
        return "\(bytes.count / 2 / max(1, channels)) \(channels) \(digest.finalize())"
    }

    static func reference(_ capture: String) throws -> String {
        try String(
            contentsOf: Fixtures.expected.appendingPathComponent(capture + ".pcap.ffmpeg-pcm.txt"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: captures)
    func extractWritesAFileFFmpegDecodesAsGStreamersStream(capture: (name: String, file: String)) async throws {
        let output = Self.temporary("out." + capture.file)
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try await RTPDumpBinary.run(
            ["extract", Fixtures.capture(capture.name + ".pcap"), "--sdp", Fixtures.capture(capture.name + ".sdp"),
             "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await Self.ffmpegPCM(output) == Self.reference(capture.name))
        guard capture.file == "aac" else { return }
        // GStreamer's frames (its ADTS file) through an MP4, then FFmpeg's ADTS muxer: FFmpeg's own headers.
        // (GStreamer's aacparse sets the private, original and home bits, which carry nothing.)
        let m4a = Self.temporary("gst.m4a")
        let adts = Self.temporary("ffmpeg.aac")
        defer { for path in [m4a, adts] { try? FileManager.default.removeItem(atPath: path) } }
        let gst = Fixtures.expected.appendingPathComponent(capture.name + ".pcap.gst.adts").path
        for arguments in [["-i", gst, "-c", "copy", "-f", "mp4", "-y", m4a], ["-i", m4a, "-c", "copy", "-f", "adts", "-y", adts]] {
            let remux = try await runProgram("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error"] + arguments)
            #expect(remux.status == 0, "\(remux.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(contentsOf: URL(fileURLWithPath: adts)))
    }

    /// `decode --audio -o OUT.wav --md5`: the WAV holds FFmpeg's decoding of GStreamer's stream, and each MD5
    /// line is that of its frame's samples in the WAV, in order.
    @Test(arguments: captures)
    func decodeWritesTheSamplesFFmpegDecodes(capture: (name: String, file: String)) async throws {
        let output = Self.temporary("decoded.wav")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try await RTPDumpBinary.run(
            ["decode", "--audio", Fixtures.capture(capture.name + ".pcap"), "--sdp",
             Fixtures.capture(capture.name + ".sdp"), "-o", output, "--md5"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await Self.ffmpegPCM(output) == Self.reference(capture.name))
        // Line by line: "<index> <pts> <samples>x<channels> <md5>", the md5 of the next samples of the WAV.
        let wav = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        var position = 44
        var lastPTS: Int64?
        for (index, line) in run.stdout.split(separator: "\n").enumerated() {
            let fields = line.split(separator: " ")
            #expect(fields.count == 4 && fields[0] == "\(index)")
            let shape = fields[2].split(separator: "x").compactMap { Int($0) }
            let bytes = (shape.first ?? 0) * (shape.last ?? 0) * 2
            var digest = MD5()
            digest.update(wav[min(position, wav.count)..<min(position + bytes, wav.count)])
            #expect(String(fields[3]) == digest.finalize(), "line \(index)")
            position += bytes
            let pts = Int64(fields[1]) ?? -1
            #expect(lastPTS.map { pts > $0 } ?? true)
            lastPTS = pts
        }
        #expect(position == wav.count)
    }

    /// Packets lost from a G.711 stream: the WAV keeps the time, silence where they were (the lost packets'
    /// samples), and says so; a file named for another codec is refused with the one to use.
    @Test func aWAVKeepsTheTimeAcrossLossAndTheWrongFileIsRefused() async throws {
        let output = Self.temporary("dropped.wav")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try await RTPDumpBinary.run(
            ["extract", Fixtures.capture("audio-pcmu-gst-dropped.pcap"), "--sdp", Fixtures.capture("audio-pcmu-gst.sdp"),
             "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let lost = try #require(
            run.stderr.split(separator: ";").first { $0.contains("samples of silence") }?
                .split(separator: " ").first { Int($0) != nil }.flatMap { Int($0) })
        #expect(lost > 0 && lost % 160 == 0)  // whole packets of 20 ms
        let whole = try await Self.ffmpegPCM(output).split(separator: " ")
        #expect(whole.first == "16000")  // as long as the undamaged capture
        let wrong = try await RTPDumpBinary.run(
            ["extract", Fixtures.capture("audio-aac-gst.pcap"), "--sdp", Fixtures.capture("audio-aac-gst.sdp"), "-o",
             Self.temporary("x.wav")])
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("MPEG4-GENERIC, which is written as .aac"))
    }

    /// A hostile stream: an SDP that claims a clock of 10⁹ Hz and a timestamp that jumps by 2³¹ would ask
    /// for 2 GB of silence; the gap is left unfilled and counted, the file stays small.
    @Test func silenceHasABound() async throws {
        func packet(sequence: UInt16, timestamp: UInt32) -> CaptureBytes.Record {
            let rtp = [0x80, 0x00] + CaptureBytes.be16(sequence) + CaptureBytes.be32(timestamp)
                + CaptureBytes.be32(0x1234_5678) + [UInt8](repeating: 0x55, count: 160)
            let frame = CaptureBytes.ethernet(
                CaptureBytes.ipv4(payload: CaptureBytes.udp(sourcePort: 5000, destinationPort: 5004, payload: rtp)))
            return CaptureBytes.Record(seconds: 1, fraction: UInt32(sequence) * 20_000, frame: frame)
        }
        let capture = Self.temporary("jump.pcap")
        let sdp = Self.temporary("jump.sdp")
        let output = Self.temporary("jump.wav")
        defer { for path in [capture, sdp, output] { try? FileManager.default.removeItem(atPath: path) } }
        let records = [packet(sequence: 1, timestamp: 0), packet(sequence: 2, timestamp: 160),
                       packet(sequence: 3, timestamp: 0x8000_0000), packet(sequence: 4, timestamp: 0x8000_00A0)]
        try Data(CaptureBytes.pcap(records)).write(to: URL(fileURLWithPath: capture))
        try "v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 5004 RTP/AVP 0\r\na=rtpmap:0 PCMU/1000000000\r\n"
            .write(toFile: sdp, atomically: true, encoding: .utf8)
        let run = try await RTPDumpBinary.run(["extract", capture, "--sdp", sdp, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("4 frames") && run.stderr.contains("1 gaps too long to fill"), "\(run.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int
        #expect(size == 58 + 4 * 160)
    }
}
