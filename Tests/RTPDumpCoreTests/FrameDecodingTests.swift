import MediaPipeline
import RTSPClient
import Foundation
import H26x
import PacketCapture
import RTPDumpCore
import SDP
import Testing
import VideoDecoding
import FFmpegDecoding

/// The FFmpeg decoder on the fixtures, against GStreamer's avdec_h264 / avdec_h265 on the same RTP
/// (Fixtures/expected/*.gst-frames.md5, from Fixtures/scripts/gst_frame_md5.sh).
@Suite struct FrameDecodingTests {
    static func decode(_ path: String, threads: Int = 1) throws -> (
        md5s: [String], frames: [I420Frame], summary: FrameDecoding.Summary
    ) {
        var capture = try CaptureFile(contentsOf: path)
        var md5s: [String] = []
        var frames: [I420Frame] = []
        let summary = try FrameDecoding.decode(&capture, filter: StreamFilter(), codec: nil, threads: threads) {
            frame in
            md5s.append(FrameDigest.md5(frame))
            frames.append(frame)
        }
        return (md5s, frames, summary)
    }

    @Test(arguments: [
        FFmpegVideoDecoder.Configuration(threads: 100_000), FFmpegVideoDecoder.Configuration(threads: -1),
        FFmpegVideoDecoder.Configuration(outputSize: (1 << 20, 720)),
        FFmpegVideoDecoder.Configuration(poolCapacity: -3),
    ])
    func aDecoderIsNotOpenedWithSettingsOutOfRange(configuration: FFmpegVideoDecoder.Configuration) {
        let error = #expect(throws: VideoDecodingError.self) {
            try FFmpegVideoDecoder(codec: .h264, configuration: configuration)
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.reason.contains("must be from") == true)
    }

    static func expected(_ capture: String) throws -> [String] {
        try String(contentsOf: Fixtures.expected.appendingPathComponent(capture + ".gst-frames.md5"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
    }

    static let captures = [
        "h264-gst.pcap", "h265-gst-sll.pcap", "h264-ffmpeg.pcap", "h265-ffmpeg-ipv6.pcapng", "rtsp-h264-udp.pcap",
    ]

    @Test(arguments: captures)
    func frameMD5sEqualGStreamers(capture: String) throws {
        let expected = try Self.expected(capture)
        #expect(expected.count > 70)
        let run = try Self.decode(Fixtures.capture(capture))
        #expect(run.md5s == expected)
        #expect(run.summary.decodeErrors == 0)
        #expect(run.frames.allSatisfy { !$0.mayBeDamaged })
    }

    @Test func framesKeepTheirTimestampsThroughBFrameReordering() throws {
        // FFmpeg's sender used B-frames: access units arrive in decoding order, frames leave in
        // presentation order, each with the RTP timestamp of the access unit it came from.
        let run = try Self.decode(Fixtures.capture("h264-ffmpeg.pcap"))
        let timestamps = run.frames.map(\.timestamp)
        #expect(timestamps == timestamps.sorted())
        #expect(Set(timestamps).count == timestamps.count)
        let steps = Set(zip(timestamps, timestamps.dropFirst()).map { $1 - $0 })
        #expect(steps == [3600])  // 25 fps at 90 kHz
    }

    @Test func reorderedAndDuplicatedDecodesToTheCleanList() throws {
        #expect(
            try Self.decode(Fixtures.capture("h264-gst-reordered-dup.pcap")).md5s
                == (try Self.expected("h264-gst.pcap")))
    }

    /// A source renamed every 30 packets with its sequence numbers and timestamps carrying on
    /// (Fixtures/scripts/ssrc_change.py --relabel): one stream, every picture GStreamer decodes from the
    /// clean capture, none damaged (before, each name was a stream of its own: 19 of 180 frames).
    @Test func aRelabelledSourceIsOneStream() throws {
        let run = try Self.decode(Fixtures.capture("h264-gst-relabelled.pcap"))
        #expect(run.md5s == (try Self.expected("h264-gst.pcap")))
        #expect(run.frames.allSatisfy { !$0.mayBeDamaged && !$0.isDiscontinuity })
    }

    @Test func moreThreadsGiveTheSamePictures() throws {
        #expect(
            try Self.decode(Fixtures.capture("h264-gst.pcap"), threads: 2).md5s == (try Self.expected("h264-gst.pcap")))
    }

    @Test func lossyCapturesDecodeAndFlagFramesUntilTheNextKeyframe() throws {
        let run = try Self.decode(Fixtures.capture("h264-gst-dropped.pcap"))
        #expect(run.frames.count > 80)
        let damaged = run.frames.filter(\.mayBeDamaged)
        #expect(!damaged.isEmpty)
        // Once a frame is flagged, the flag stays until a keyframe (this stream has no B-frames, so frames
        // leave in decoding order), and a complete keyframe clears it.
        for (previous, frame) in zip(run.frames, run.frames.dropFirst())
        where previous.mayBeDamaged && !frame.isKeyframe {
            #expect(frame.mayBeDamaged)
        }
        #expect(
            run.frames.contains { $0.isKeyframe && !$0.mayBeDamaged && $0.timestamp > (damaged.first?.timestamp ?? 0) })
        #expect(run.frames.first?.mayBeDamaged == false)
    }

    @Test func truncatedCapturesDecodeWhatTheyHold() throws {
        let run = try Self.decode(Fixtures.capture("h264-gst-truncated.pcap"))
        #expect(run.frames.count > 30 && run.frames.count < 90)
        #expect(Array(try Self.expected("h264-gst.pcap").prefix(run.md5s.count - 1)) == Array(run.md5s.dropLast()))
    }

    /// GStreamer decodes 2036 frames (../shared/fixtures/real/README.md); its list is kept as a digest.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: Fixtures.real.path)))
    func realCameraDecodesToGStreamersFrames() throws {
        let expected = try #require(try Fixtures.json("camera-h264-2011.gst-frames.json") as? [String: Any])
        let run = try Self.decode(Fixtures.real.appendingPathComponent("camera-h264-2011.pcap").path)
        var md5 = MD5()
        md5.update(Array(run.md5s.map { $0 + "\n" }.joined().utf8))
        #expect(run.md5s.count == 2036)
        #expect(run.md5s.count == expected["frames"] as? Int)
        #expect(md5.finalize() == expected["md5OfList"] as? String)
    }

    @Test func md5LinesHaveTheDocumentedShape() throws {
        let run = try Self.decode(Fixtures.capture("h264-ffmpeg.pcap"))
        let line = FrameDecoding.md5Line(index: 0, try #require(run.frames.first))
        let fields = line.split(separator: " ")
        #expect(fields.count == 4)
        #expect(fields[0] == "0")
        #expect(Int64(fields[1]) != nil)
        #expect(fields[2] == "320x240")
        #expect(fields[3] == Substring(run.md5s[0]))
    }
}

/// Pictures that need libswscale, against FFmpeg's own conversion of the same streams
/// (Fixtures/expected/*.ffmpeg-*.md5, from Fixtures/scripts/ffmpeg_frame_md5.sh).
@Suite struct FrameConversionTests {
    static func reference(_ name: String) throws -> [String] {
        try String(contentsOf: Fixtures.expected.appendingPathComponent(name), encoding: .utf8)
            .split(separator: "\n").map(String.init)
    }

    static func md5s(_ capture: String, size: (width: Int, height: Int)? = nil) throws -> [(String, Int, Int)] {
        var file = try CaptureFile(contentsOf: Fixtures.capture(capture))
        var out: [(String, Int, Int)] = []
        _ = try FrameDecoding.decode(&file, filter: StreamFilter(), codec: nil, threads: 1, outputSize: size) {
            out.append((FrameDigest.md5($0), $0.width, $0.height))
        }
        return out
    }

    @Test(arguments: ["h264-yuv444-ffmpeg.pcap", "h265-10bit-ffmpeg.pcap"])
    func picturesThatAreNot8Bit420AreConvertedAsFFmpegDoes(capture: String) throws {
        let expected = try Self.reference(capture + ".ffmpeg-i420.md5")
        let ours = try Self.md5s(capture)
        #expect(expected.count == 25)
        #expect(ours.map(\.0) == expected)
        #expect(ours.allSatisfy { $0.1 == 320 && $0.2 == 240 })
    }

    @Test func framesAreScaledToTheAskedSizeAsFFmpegDoes() throws {
        let ours = try Self.md5s("h264-ffmpeg.pcap", size: (160, 120))
        #expect(ours.map(\.0) == (try Self.reference("h264-ffmpeg.pcap.ffmpeg-160x120.md5")))
        #expect(ours.allSatisfy { $0.1 == 160 && $0.2 == 120 })
    }
}

@Suite struct DecoderLifecycleTests {
    static func units(_ capture: String) throws -> [AccessUnit] {
        var file = try CaptureFile(contentsOf: Fixtures.capture(capture))
        var streams = CaptureMediaStreams.video()
        var units: [AccessUnit] = []
        while let datagram = try file.nextDatagram() { streams.add(datagram, accessUnits: { units.append($1) }) }
        streams.finish(accessUnits: { units.append($1) })
        return units
    }

    @Test func resetThenTheSameStreamGivesTheSameFrames() throws {
        let units = try Self.units("h264-gst.pcap")
        let expected = try FrameDecodingTests.expected("h264-gst.pcap")
        let decoder = try FFmpegVideoDecoder(codec: .h264)
        var first: [String] = []
        for unit in units.prefix(40) { try decoder.decode(unit) { first.append(FrameDigest.md5($0)) } }
        decoder.reset()
        var again: [String] = []
        for unit in units { try decoder.decode(unit) { again.append(FrameDigest.md5($0)) } }
        try decoder.drain { again.append(FrameDigest.md5($0)) }
        #expect(first == Array(expected.prefix(first.count)))
        #expect(again == expected)
    }

    @Test func flushDropsWhatIsHeldAndDecodingGoesOnFromTheNextKeyframe() throws {
        let units = try Self.units("h264-ffmpeg.pcap")  // B-frames: the decoder holds frames back
        let decoder = try FFmpegVideoDecoder(codec: .h264)
        var frames = 0
        for unit in units.prefix(10) { try decoder.decode(unit) { _ in frames += 1 } }
        decoder.flush()
        let keyframe = try #require(units.dropFirst(10).firstIndex { $0.isKeyframe })
        var after: [String] = []
        for unit in units[keyframe...] { try decoder.decode(unit) { after.append(FrameDigest.md5($0)) } }
        try decoder.drain { after.append(FrameDigest.md5($0)) }
        let expected = try FrameDecodingTests.expected("h264-ffmpeg.pcap")
        #expect(frames < 10)
        #expect(after == Array(expected.suffix(after.count)))
        #expect(decoder.decodeErrors == 0)
    }
}

/// The interleaved captures decoded with the SDP a server would give for them (written by
/// Fixtures/scripts/interleave.py): the pictures are GStreamer's frames of the streams they were made from.
@Suite struct InterleavedDecodingTests {
    @Test(arguments: [("h264-interleaved-mode2", "h264-gst.pcap"), ("h265-donl", "h265-gst-sll.pcap")])
    func decodesToTheOriginalStreamsFrames(capture: String, original: String) throws {
        let text = try String(contentsOf: Fixtures.captures.appendingPathComponent(capture + ".sdp"), encoding: .utf8)
        let format = try #require(try SessionDescription(text).videoFormat())
        var file = try CaptureFile(contentsOf: Fixtures.capture(capture + ".pcap"))
        var md5s: [String] = []
        let summary = try FrameDecoding.decode(
            &file, filter: StreamFilter(payloadType: format.payloadType), codec: nil, threads: 1,
            template: Depacketizer(format: .video(format))
        ) { md5s.append(FrameDigest.md5($0)) }
        #expect(md5s == (try FrameDecodingTests.expected(original)))
        #expect(summary.accessUnits == 90)
        #expect(summary.decodeErrors == 0)
    }
}
