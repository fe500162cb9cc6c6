import FFmpegDecoding
import Foundation
@testable import H26x
import TestSupport
import Testing
import VideoDecoding

/// `rtpdump snapshot` and `JPEGSnapshot`: the capture's last keyframe as a JPEG file, against that keyframe as
/// GStreamer depayloads it and FFmpeg decodes it (Fixtures/scripts/snapshot-reference.py), compared by PSNR
/// after FFmpeg decodes our file.
@Suite struct SnapshotTests {
    /// The full-range 4:2:0 pixels of a file FFmpeg reads.
    static func pixels(ffmpegReads path: String, format: String? = nil) async throws -> [UInt8] {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-\(UUID().uuidString).yuv")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try await runProgram(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-y", "-i", path, "-pix_fmt", "yuvj420p", "-f", "rawvideo", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        return Array(try Data(contentsOf: out))
    }

    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var squares = 0.0
        for (x, y) in zip(a, b) { squares += Double((Int(x) - Int(y)) * (Int(x) - Int(y))) }
        let mse = squares / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// GStreamer-sent H.264 (SPS and PPS before each IDR slice), FFmpeg-sent H.264 (B-frames), GStreamer's H.265
    /// and a GStreamer Motion JPEG stream (full range, passed to the encoder as it is). FFmpeg's own MJPEG capture is
    /// not among them: GStreamer's rtpjpegdepay reads its one shared quantization table wrongly (the reference came
    /// out garbled, 9.7 dB; ours is the test pattern).
    @Test(
        .enabled(if: RTPDumpBinary.present),
        arguments: [
            ("h264-gst.pcap", "h264"), ("h264-ffmpeg.pcap", "h264"), ("h265-gst-sll.pcap", "h265"),
            ("mjpeg-422-gst.pcap", "jpeg"),
        ])
    func theSnapshotIsTheLastKeyframeAsFFmpegDecodesIt(capture: String, codec: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let reference = directory.appendingPathComponent("reference.yuv")
        let script = Fixtures.root.appendingPathComponent("Fixtures/scripts/snapshot-reference.py").path
        let made = try await runProgram("/usr/bin/python3", [script, Fixtures.capture(capture), codec, reference.path])
        #expect(made.status == 0, "\(made.stderr)")
        let jpeg = directory.appendingPathComponent("snapshot.jpg")
        let run = try await RTPDumpBinary.run(["snapshot", Fixtures.capture(capture), "-o", jpeg.path])
        #expect(run.status == 0, "\(run.stderr)")
        let ours = try await Self.pixels(ffmpegReads: jpeg.path)
        let expected = Array(try Data(contentsOf: reference))
        #expect(ours.count == 320 * 240 * 3 / 2 && expected.count == ours.count)
        let psnr = Self.psnr(ours, expected)
        #expect(psnr >= 40, "PSNR \(psnr) dB against the reference of \(capture)")
    }

    /// An H.264 decoder's frames are limited range (black is 16): the JPEG, full range, has black at 0 and white
    /// at 255, as FFmpeg's command line converts them; a full-range frame keeps its values.
    @Test func limitedRangeIsConvertedAndFullRangeKept() async throws {
        let (width, height) = (64, 32)
        var storage = [UInt8](
            repeating: 128, count: I420Frame.storageSize(height: height, strideY: width, strideUV: 32))
        for row in 0..<height { for column in 0..<width { storage[row * width + column] = column < 32 ? 16 : 235 } }
        let limited = I420Frame(
            width: width, height: height, timestamp: 0, isKeyframe: true, mayBeDamaged: false, storage: storage,
            strideY: width, strideUV: 32)
        var full = limited
        full.isFullRange = true
        let encoder = try FFmpegJPEGEncoder()
        for (frame, black, white) in [(limited, 0, 255), (full, 16, 235)] {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("range-\(UUID().uuidString).jpg")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(try encoder.encode(frame)).write(to: file)
            let pixels = try await Self.pixels(ffmpegReads: file.path)
            #expect(pixels.count == width * height * 3 / 2)
            // Away from the edge between the halves, where JPEG's blocks ring.
            let left = pixels[8 * width + 4], right = pixels[8 * width + 60]
            #expect(abs(Int(left) - black) <= 2 && abs(Int(right) - white) <= 2, "\(left) and \(right)")
        }
    }

    @Test func whatCannotBeASnapshotSaysWhy() throws {
        #expect(throws: VideoDecodingError.self) { try FFmpegJPEGEncoder(quality: 1) }
        #expect(throws: VideoDecodingError.self) { try FFmpegJPEGEncoder(quality: 32) }
        let none = #expect(throws: VideoDecodingError.self) { try JPEGSnapshot.jpeg(of: LatestKeyframe()) }
        #expect(none?.code == .noFrames)
        let slice = AccessUnit(codec: .h264, timestamp: 0, nalUnits: [[0x41, 0x9A, 0x00]])
        let notKey = #expect(throws: VideoDecodingError.self) { try JPEGSnapshot.jpeg(of: slice) }
        #expect(notKey?.code == .invalidCall)
        // A keyframe whose parameter sets nobody gave decodes to nothing: said so, with what to give.
        let idr = AccessUnit(codec: .h264, timestamp: 0, nalUnits: [[0x65, 0x88, 0x84, 0x00, 0x33]])
        let unknown = #expect(throws: VideoDecodingError.self) { try JPEGSnapshot.jpeg(of: idr) }
        #expect(unknown?.code == .noFrames && "\(unknown.map { "\($0)" } ?? "")".contains("parameter sets"))
    }

    /// The keeper holds the latest complete keyframe and the parameter sets seen in band; a keyframe that lost a
    /// packet does not replace the one before.
    @Test func theLatestCompleteKeyframeIsKept() throws {
        let sps: [UInt8] = [
            0x67, 0x42, 0xC0, 0x1E, 0xDA, 0x02, 0x80, 0xBF, 0xE5, 0xC0, 0x44, 0x00, 0x00, 0x03, 0x00, 0x04,
        ]
        let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
        var latest = LatestKeyframe()
        latest.note(AccessUnit(codec: .h264, timestamp: 0, nalUnits: [sps, pps, [0x65, 1]]))
        latest.note(AccessUnit(codec: .h264, timestamp: 3000, nalUnits: [[0x41, 2]]))
        #expect(latest.keyframe?.timestamp == 0 && latest.keyframes == 1)
        #expect(latest.parameterSets?.all.count == 2)
        let whole = AccessUnit(codec: .h264, timestamp: 6000, nalUnits: [[0x65, 3]])
        latest.note(
            AccessUnit(
                codec: .h264, timestamp: 6000, nalUnits: whole.nalUnits, isKeyframe: true, parameterSetsChanged: false,
                lostPackets: 1, ssrc: 0))
        #expect(latest.keyframe?.timestamp == 0)
        latest.note(AccessUnit(codec: .h264, timestamp: 9000, nalUnits: [[0x65, 4]]))
        #expect(latest.keyframe?.timestamp == 9000 && latest.keyframes == 2)
    }
}
