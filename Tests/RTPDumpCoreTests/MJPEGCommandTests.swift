import Foundation
import Testing
import TestSupport

/// rtpdump on Motion JPEG captures: `decode --md5` and `-o OUT.y4m`, `extract -o OUT.mjpeg` (a file FFmpeg
/// opens), `streams` naming the codec; each against the pictures the sender wrote (mjpeg_references.sh).
@Suite(.enabled(if: RTPDumpBinary.present)) struct MJPEGCommandTests {
    static func sent(_ capture: String) throws -> [String] {
        try String(
            contentsOf: Fixtures.expected.appendingPathComponent("\(capture).pcap.sent-i420.md5"), encoding: .utf8
        )
        .split(separator: "\n").map(String.init)
    }

    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("mjpeg-\(UUID().uuidString)-\(name)").path
    }

    /// FFmpeg's frames of a file it reads as `format`, as I420 MD5s (JPEG pictures decoded to full-range I420).
    static func ffmpegMD5s(_ path: String, format: String) async throws -> [String] {
        let conversion = format == "mjpeg" ? ["-pix_fmt", "yuvj420p"] : []
        let run = try await runProgram(
            "/usr/bin/ffmpeg",
            ["-hide_banner", "-loglevel", "error", "-f", format, "-i", path] + conversion + ["-f", "framemd5", "-"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { String($0).trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test func decodePrintsTheSendersPicturesAndWritesThemAsY4M() async throws {
        let output = Self.temporary("out.y4m")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try await RTPDumpBinary.run(
            ["decode", Fixtures.capture("mjpeg-422-gst.pcap"), "--md5", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let md5s = run.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(md5s == (try Self.sent("mjpeg-422-gst")))
        #expect(run.stderr.contains("JPEG: 20 access units, 20 frames (0 may be damaged), 0 decoder errors"))
        #expect(try await Self.ffmpegMD5s(output, format: "yuv4mpegpipe") == (try Self.sent("mjpeg-422-gst")))
        let header = try #require(try String(contentsOfFile: output, encoding: .isoLatin1).split(separator: "\n").first)
        #expect(header.hasSuffix(" XCOLORRANGE=FULL"))
    }

    @Test func extractWritesJPEGFilesFFmpegOpens() async throws {
        let output = Self.temporary("out.mjpeg")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try await RTPDumpBinary.run(["extract", Fixtures.capture("mjpeg-ffmpeg.pcap"), "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("warning"), "\(run.stderr)")
        #expect(try await Self.ffmpegMD5s(output, format: "mjpeg") == (try Self.sent("mjpeg-ffmpeg")))
    }

    /// Above 2040 pixels the size is the SDP's.
    @Test func decodeTakesTheSizeFromTheSDP() async throws {
        let run = try await RTPDumpBinary.run(
            [
                "decode", Fixtures.capture("mjpeg-2560-gst.pcap"), "--sdp", Fixtures.capture("mjpeg-2560-gst.sdp"),
                "--md5",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").allSatisfy { $0.contains(" 2560x64 ") })
        #expect(run.stdout.split(separator: "\n").count == 6)
    }

    @Test func streamsNamesTheCodecOfPayloadType26() async throws {
        let run = try await RTPDumpBinary.run(["streams", Fixtures.capture("mjpeg-420-gst.pcap")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").last?.hasSuffix("JPEG") == true, "\(run.stdout)")
    }
}
