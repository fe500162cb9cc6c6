import MediaDecoding
import Audio
import MediaPipeline
import Foundation
import PacketCapture
import RTP
import SDP
import Testing
import VideoDecoding

/// The audio depacketizer on captures of real senders (GStreamer's rtppcmupay, rtppcmapay, rtpL16pay,
/// rtpmp4gpay, rtpmp4apay, rtpopuspay; FFmpeg's RTP muxer for AAC and Opus; Fixtures/scripts/
/// make-audio-fixtures.sh) against GStreamer's depayloaders on the same packets
/// (expected/<capture>.gst-frames.txt: each buffer's size and MD5; gst_audio_references.sh).
@Suite struct AudioFixtureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let captures = [
        "audio-pcmu-gst", "audio-pcma-gst", "audio-l16-gst", "audio-aac-gst", "audio-latm-gst", "audio-opus-gst",
        "audio-aac-ffmpeg", "audio-opus-ffmpeg",
    ]

    static func format(_ name: String) throws -> AudioFormat {
        let sdp = try String(
            contentsOf: root.appendingPathComponent("Fixtures/captures/\(name).sdp"), encoding: .utf8)
        return try #require(try SessionDescription(sdp).media.first?.audioFormat)
    }

    static func expected(_ name: String) throws -> [String] {
        try String(
            contentsOf: root.appendingPathComponent("Fixtures/expected/\(name).pcap.gst-frames.txt"), encoding: .utf8
        ).split(separator: "\n").map(String.init)
    }

    static func line(_ frame: AudioFrame) -> String {
        var digest = MD5()
        digest.update(frame.bytes)
        return "\(frame.bytes.count) \(digest.finalize())"
    }

    /// The frames of a capture's RTP (RTCP left out) through the library's pipeline, its track made from
    /// the SDP's format (a reorder buffer, then the audio depacketizer).
    static func frames(_ capture: String, format: AudioFormat) throws -> (
        frames: [AudioFrame], statistics: AudioDepacketizerStatistics
    ) {
        var file = try CaptureFile(contentsOf: root.appendingPathComponent("Fixtures/captures/\(capture).pcap").path)
        var pipeline = MediaPipeline(formats: [.audio(format)])
        var frames: [AudioFrame] = []
        while let datagram = try file.nextDatagram() {
            guard !RTPPacket.looksLikeRTCP(datagram.payload), let packet = try? RTPPacket(datagram.payload) else {
                continue
            }
            pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: datagram.time))
            while let frame = pipeline.next()?.audioFrame { frames.append(frame) }
        }
        pipeline.finish()
        while let frame = pipeline.next()?.audioFrame { frames.append(frame) }
        #expect(pipeline.next()?.accessUnit == nil)
        return (frames, try #require(pipeline.depacketizer(track: 0)?.audio).statistics)
    }

    @Test(arguments: captures)
    func framesEqualGStreamersDepayloader(capture: String) throws {
        let format = try Self.format(capture)
        let expected = try Self.expected(capture)
        #expect(expected.count >= 80)
        let (frames, statistics) = try Self.frames(capture, format: format)
        #expect(frames.map(Self.line) == expected)
        #expect(statistics == AudioDepacketizerStatistics())
        #expect(frames.allSatisfy { $0.lostPacketsBefore == 0 && $0.codec == format.codec })
        // Timestamps step by each frame's duration (at the track's clock); GStreamer's Opus sender stamps its
        // first packet 312 samples (its encoder's delay) earlier than a full frame before the second.
        for (a, b) in zip(frames, frames.dropFirst()).dropFirst(capture == "audio-opus-gst" ? 1 : 0) {
            let ticks = Int(b.timestamp) - Int(a.timestamp)
            let duration = a.sampleCount * format.clockRate / (format.codec == .opus ? 48000 : format.clockRate)
            #expect(ticks == duration, "\(a.timestamp) → \(b.timestamp): \(ticks) ticks for \(a.sampleCount) samples")
        }
    }

    /// Reordered and duplicated on the way: the reorder buffer puts them back, the same frames come out.
    @Test(arguments: captures)
    func reorderedAndDuplicatedPacketsGiveTheSameFrames(capture: String) throws {
        let (frames, _) = try Self.frames(capture + "-reordered-dup", format: try Self.format(capture))
        #expect(frames.map(Self.line) == (try Self.expected(capture)))
    }

    /// Seven packets lost: what comes out is the clean stream's frames with some left out, in order, never a
    /// frame that is not one of them (nothing spliced), and the loss is counted on the frames after it.
    @Test(arguments: captures)
    func lostPacketsLeaveFramesOutAndAreCounted(capture: String) throws {
        let expected = try Self.expected(capture)
        let (frames, _) = try Self.frames(capture + "-dropped", format: try Self.format(capture))
        let lines = frames.map(Self.line)
        var remaining = expected[...]
        for line in lines {
            guard let index = remaining.firstIndex(of: line) else {
                Issue.record("a frame that GStreamer's clean stream does not have: \(line)")
                break
            }
            remaining = remaining[(index + 1)...]
        }
        #expect(lines.count < expected.count)
        #expect(lines.count >= expected.count - 7 * 8)
        #expect(frames.reduce(0) { $0 + $1.lostPacketsBefore } == 7)
    }
}
