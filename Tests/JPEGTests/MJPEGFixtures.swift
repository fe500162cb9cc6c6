import FFmpegDecoding
import Foundation
import H26x
import MediaPipeline
import PacketCapture
import RTP
import SDP
import VideoDecoding

/// The MJPEG captures (Fixtures/scripts/make-mjpeg-fixtures.sh) and their references (mjpeg_references.sh).
enum MJPEGFixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func path(_ name: String) -> String { root.appendingPathComponent("Fixtures/captures/\(name)").path }

    /// A reference list of frame MD5s: `sent` (the sender's pictures), `gst-depay`, `ffmpeg-depay`.
    static func md5s(_ capture: String, _ reference: String) throws -> [String] {
        try String(
            contentsOf: root.appendingPathComponent("Fixtures/expected/\(capture).pcap.\(reference)-i420.md5"),
            encoding: .utf8
        ).split(separator: "\n").map(String.init)
    }

    /// The first media section's format in the capture's SDP (the clean capture's, for a derived one).
    static func format(_ sdpName: String) throws -> MediaFormat? {
        let sdp = try String(contentsOfFile: path("\(sdpName).sdp"), encoding: .utf8)
        return try SessionDescription(sdp).media.first?.mediaFormat
    }

    /// The capture's RTP through a pipeline of one track made from `format` (sniffing without one): the
    /// units, and the track's depacketizer at the end.
    static func units(_ capture: String, format: MediaFormat?) throws -> (
        units: [AccessUnit], depacketizer: Depacketizer?
    ) {
        var file = try CaptureFile(contentsOf: path("\(capture).pcap"))
        var pipeline = format.map { MediaPipeline(formats: [$0]) } ?? MediaPipeline(depacketizers: [.sniffing()])
        var units: [AccessUnit] = []
        while let datagram = try file.nextDatagram() {
            guard let packet = try? RTPPacket(datagram.payload) else { continue }
            pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: datagram.time))
            while let unit = pipeline.next() { if let picture = unit.accessUnit { units.append(picture) } }
        }
        pipeline.finish()
        while let unit = pipeline.next() { if let picture = unit.accessUnit { units.append(picture) } }
        return (units, pipeline.depacketizer(track: 0))
    }

    /// The units decoded by libavcodec's JPEG decoder through the library's decoder: frame MD5s (I420).
    static func decode(_ units: [AccessUnit]) throws -> (md5s: [String], frames: [I420Frame]) {
        let decoder = try FFmpegVideoDecoder(codec: .jpeg)
        var frames: [I420Frame] = []
        for unit in units { try decoder.decode(unit) { frames.append($0) } }
        try decoder.drain { frames.append($0) }
        return (frames.map(FrameDigest.md5), frames)
    }
}
