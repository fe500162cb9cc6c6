import Foundation
import TestSupport
import Testing
import VideoDecoding

/// `rtpdump decode --audio` and `extract` on G.722 and G.726 captures: the WAV holds the samples libavcodec
/// decodes from the code words the sender wrote (expected/<capture>.sent-pcm.txt, make-g72x-fixtures.sh); the
/// raw file is those code words.
@Suite(.enabled(if: RTPDumpBinary.present)) struct G72xCommandTests {
    static func sent(_ capture: String) throws -> String {
        try String(
            contentsOf: Fixtures.expected.appendingPathComponent("\(capture).pcap.sent-pcm.txt"), encoding: .utf8
        )
        .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func decode(_ capture: String, _ extra: [String] = []) async throws -> (run: ProgramRun, pcm: String) {
        let output = AudioFileTests.temporary("\(capture).wav")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try await RTPDumpBinary.run(
            [
                "decode", "--audio", Fixtures.capture("\(capture).pcap"), "--sdp", Fixtures.capture("\(capture).sdp"),
                "-o", output,
            ] + extra)
        #expect(run.status == 0, "\(run.stderr)")
        return (run, try await AudioFileTests.ffmpegPCM(output))
    }

    @Test(arguments: ["audio-g722-gst", "audio-g726-24-ffmpeg", "audio-g726-40-ffmpeg"])
    func decodeWritesTheSendersSamples(capture: String) async throws {
        #expect(try await Self.decode(capture).pcm == (try Self.sent(capture)))
    }

    /// GStreamer's G.726 is AAL2's order named G726-*: `--g726-packing aal2` plays it.
    @Test func theG726PackingOptionPlaysGStreamersStream() async throws {
        let capture = "audio-g726-32-gst"
        #expect(try await Self.decode(capture).pcm != (try Self.sent(capture)))
        #expect(try await Self.decode(capture, ["--g726-packing", "aal2"]).pcm == (try Self.sent(capture)))
    }

    /// `extract -o OUT.g726`: the code words as sent, which FFmpeg's raw demuxer decodes to the sender's samples.
    @Test func extractWritesTheCodeWords() async throws {
        let capture = "audio-g726-16-ffmpeg"
        let output = AudioFileTests.temporary("out.g726")
        let pcm = AudioFileTests.temporary("out.s16")
        defer { for path in [output, pcm] { try? FileManager.default.removeItem(atPath: path) } }
        let run = try await RTPDumpBinary.run(
            ["extract", Fixtures.capture("\(capture).pcap"), "--sdp", Fixtures.capture("\(capture).sdp"), "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let decoded = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-f", "g726le", "-code_size", "2", "-sample_rate", "8000", "-i",
                output,
                "-f", "s16le", "-y", pcm,
            ])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: pcm)))
        var digest = MD5()
        digest.update(bytes)
        #expect("\(bytes.count / 2) 1 \(digest.finalize())" == (try Self.sent(capture)))
    }
}
