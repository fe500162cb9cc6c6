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

    /// A capture record of one RTP packet (SSRC 0x12345678) from 5000 to 5004, 20 ms after the one before.
    static func record(payloadType: UInt8, sequence: UInt16, timestamp: UInt32, payload: [UInt8]) -> CaptureBytes.Record
    {
        let rtp =
            [0x80, payloadType] + CaptureBytes.be16(sequence) + CaptureBytes.be32(timestamp)
            + CaptureBytes.be32(0x1234_5678) + payload
        let frame = CaptureBytes.ethernet(
            CaptureBytes.ipv4(payload: CaptureBytes.udp(sourcePort: 5000, destinationPort: 5004, payload: rtp)))
        return CaptureBytes.Record(seconds: 1, fraction: UInt32(sequence) * 20_000, frame: frame)
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
            [
                "extract", Fixtures.capture(capture.name + ".pcap"), "--sdp", Fixtures.capture(capture.name + ".sdp"),
                "-o", output,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await Self.ffmpegPCM(output) == Self.reference(capture.name))
        guard capture.file == "aac" else { return }
        // GStreamer's frames (its ADTS file) through an MP4, then FFmpeg's ADTS muxer: FFmpeg's own headers.
        // (GStreamer's aacparse sets the private, original and home bits, which carry nothing.)
        let m4a = Self.temporary("gst.m4a")
        let adts = Self.temporary("ffmpeg.aac")
        defer { for path in [m4a, adts] { try? FileManager.default.removeItem(atPath: path) } }
        let gst = Fixtures.expected.appendingPathComponent(capture.name + ".pcap.gst.adts").path
        for arguments in [
            ["-i", gst, "-c", "copy", "-f", "mp4", "-y", m4a], ["-i", m4a, "-c", "copy", "-f", "adts", "-y", adts],
        ] {
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
            [
                "decode", "--audio", Fixtures.capture(capture.name + ".pcap"), "--sdp",
                Fixtures.capture(capture.name + ".sdp"), "-o", output, "--md5",
            ])
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

    /// Packets lost (`*-dropped.pcap`): `decode --audio -o OUT.wav` spans the clean stream's time (as many
    /// samples as FFmpeg decodes from GStreamer's clean stream), silence of their duration where frames were
    /// lost; the frames that came are untouched: FFmpeg's own decoding of the same lossy stream (written by
    /// `extract`). Before, everything after a gap played earlier (AAC: 229,376 samples of 238,592).
    @Test(arguments: captures)
    func decodedAudioKeepsTheStreamsTimeAcrossLoss(capture: (name: String, file: String)) async throws {
        let output = Self.temporary("lossy.wav")
        let extracted = Self.temporary("lossy." + capture.file)
        let theirs = Self.temporary("lossy.s16")
        defer { for path in [output, extracted, theirs] { try? FileManager.default.removeItem(atPath: path) } }
        let lossy = Fixtures.capture(capture.name + "-dropped.pcap")
        let sdp = Fixtures.capture(capture.name + ".sdp")
        let run = try await RTPDumpBinary.run(["decode", "--audio", lossy, "--sdp", sdp, "-o", output, "--md5"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("samples of silence for lost frames"), "\(run.stderr)")
        let span = try await Self.ffmpegPCM(output).split(separator: " ").first
        #expect(span == (try Self.reference(capture.name)).split(separator: " ").first)
        let extract = try await RTPDumpBinary.run(["extract", lossy, "--sdp", sdp, "-o", extracted])
        #expect(extract.status == 0, "\(extract.stderr)")
        let decoded = try await runProgram(
            "/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-i", extracted, "-f", "s16le", "-y", theirs])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let reference = [UInt8](try Data(contentsOf: URL(fileURLWithPath: theirs)))
        let ours = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output))).dropFirst(44)
        // The decoded frames alone: the lines whose samples are not all silence. G.711 and L16 WAVs from
        // `extract` keep the time too (their silence is the codec's: A-law's decodes to 8), so their frames
        // are compared where they stand; the others' frames follow on from each other.
        let keepsTime = capture.file == "wav"
        var (kept, expected) = ([UInt8](), [UInt8]())
        var position = ours.startIndex
        for line in run.stdout.split(separator: "\n") {
            let shape = line.split(separator: " ")[2].split(separator: "x").compactMap { Int($0) }
            let end = min(ours.endIndex, position + (shape.first ?? 0) * (shape.last ?? 0) * 2)
            if ours[position..<end].contains(where: { $0 != 0 }) {
                kept += ours[position..<end]
                let offset = position - ours.startIndex
                if keepsTime {
                    expected += reference[min(reference.count, offset)..<min(reference.count, offset + end - position)]
                }
            }
            position = end
        }
        if keepsTime { #expect(ours.count == reference.count) } else { expected = reference }
        #expect(
            kept.count == expected.count && kept == expected,
            "\(kept.count) bytes of frames, \(expected.count) expected")
    }

    /// Packets lost from a G.711 stream: the WAV keeps the time, silence where they were (the lost packets'
    /// samples), and says so; a file named for another codec is refused with the one to use.
    @Test func aWAVKeepsTheTimeAcrossLossAndTheWrongFileIsRefused() async throws {
        let output = Self.temporary("dropped.wav")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try await RTPDumpBinary.run(
            [
                "extract", Fixtures.capture("audio-pcmu-gst-dropped.pcap"), "--sdp",
                Fixtures.capture("audio-pcmu-gst.sdp"),
                "-o", output,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let lost = try #require(
            run.stderr.split(separator: ";").first { $0.contains("samples of silence") }?
                .split(separator: " ").first { Int($0) != nil }.flatMap { Int($0) })
        #expect(lost > 0 && lost % 160 == 0)  // whole packets of 20 ms
        let whole = try await Self.ffmpegPCM(output).split(separator: " ")
        #expect(whole.first == "16000")  // as long as the undamaged capture
        let wrong = try await RTPDumpBinary.run(
            [
                "extract", Fixtures.capture("audio-aac-gst.pcap"), "--sdp", Fixtures.capture("audio-aac-gst.sdp"), "-o",
                Self.temporary("x.wav"),
            ])
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("MPEG4-GENERIC, which is written as .aac"))
    }

    /// A hostile stream: an SDP that claims a clock of 10⁷ Hz (the most taken) and a timestamp that jumps by
    /// 2³¹ would ask for 2 GB of silence; the gap is left unfilled and counted, the file stays small.
    @Test func silenceHasABound() async throws {
        func packet(sequence: UInt16, timestamp: UInt32) -> CaptureBytes.Record {
            Self.record(
                payloadType: 0, sequence: sequence, timestamp: timestamp, payload: .init(repeating: 0x55, count: 160))
        }
        let capture = Self.temporary("jump.pcap")
        let sdp = Self.temporary("jump.sdp")
        let output = Self.temporary("jump.wav")
        defer { for path in [capture, sdp, output] { try? FileManager.default.removeItem(atPath: path) } }
        let records = [
            packet(sequence: 1, timestamp: 0), packet(sequence: 2, timestamp: 160),
            packet(sequence: 3, timestamp: 0x8000_0000), packet(sequence: 4, timestamp: 0x8000_00A0),
        ]
        try Data(CaptureBytes.pcap(records)).write(to: URL(fileURLWithPath: capture))
        try "v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 5004 RTP/AVP 0\r\na=rtpmap:0 PCMU/10000000\r\n"
            .write(toFile: sdp, atomically: true, encoding: .utf8)
        let run = try await RTPDumpBinary.run(["extract", capture, "--sdp", sdp, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("4 frames") && run.stderr.contains("1 gaps too long to fill"), "\(run.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int
        #expect(size == 58 + 4 * 160)
    }

    /// Every packet malformed for the codec the SDP names (AU-header sections of length 0): `frames` lists
    /// nothing and says why, exit 1, where it exited 0 without a word.
    @Test func framesSaysWhenEveryPacketIsMalformed() async throws {
        let records = (1...5).map { sequence in
            Self.record(
                payloadType: 97, sequence: UInt16(sequence), timestamp: UInt32(sequence) * 1024,
                payload: [0, 0, 1, 2, 3, 4])
        }
        let capture = Self.temporary("malformed.pcap")
        defer { try? FileManager.default.removeItem(atPath: capture) }
        try Data(CaptureBytes.pcap(records)).write(to: URL(fileURLWithPath: capture))
        let run = try await RTPDumpBinary.run(
            ["frames", capture, "--sdp", Fixtures.capture("audio-aac-gst.sdp"), "--payload-type", "97"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("all 5 packets of the stream are malformed"), "\(run.stderr)")
    }

    /// Each gap under the bound of one, and many of them: 4 kB of L16 packets 9 s apart at 48 kHz stereo
    /// asked for 1.7 MB of silence each, 68 MB in all (a 4.6 KB capture once wrote 304 MB). Silence stops
    /// at the audio received plus 16 MiB; the rest is counted, and the file says a rate FFmpeg reads.
    @Test func silenceHasABoundInAll() async throws {
        func packet(sequence: UInt16) -> CaptureBytes.Record {
            Self.record(
                payloadType: 11, sequence: sequence, timestamp: UInt32(sequence) * (9 * 48000 + 25),
                payload: .init(repeating: 0x11, count: 100))
        }
        let capture = Self.temporary("gaps.pcap")
        let sdp = Self.temporary("gaps.sdp")
        let output = Self.temporary("gaps.wav")
        defer { for path in [capture, sdp, output] { try? FileManager.default.removeItem(atPath: path) } }
        try Data(CaptureBytes.pcap((1...40).map { packet(sequence: UInt16($0)) })).write(
            to: URL(fileURLWithPath: capture))
        try "v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 5004 RTP/AVP 11\r\na=rtpmap:11 L16/48000/2\r\n"
            .write(toFile: sdp, atomically: true, encoding: .utf8)
        let run = try await RTPDumpBinary.run(["extract", capture, "--sdp", sdp, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("40 frames"), "\(run.stderr)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
        #expect(size <= 44 + 40 * 100 + (16 << 20))
        #expect(size > 8 << 20)  // the first gaps were filled
        #expect(run.stderr.contains("gaps too long to fill"), "\(run.stderr)")
        let probe = try await runProgram(
            "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=sample_rate", "-of", "csv=p=0", output])
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "48000")
    }
}
