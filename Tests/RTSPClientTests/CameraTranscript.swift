import Foundation
import PacketCapture
import RTP
@_spi(SansIO) import RTSP

/// A real camera's RTSP answer, from `Fixtures/cameras` (retina's test data, MIT): its bytes as
/// recorded, with only what a replay must change: the camera's URLs point at the replaying server, the
/// CSeq is the request's, and Content-Length follows the body.
struct CameraTranscript {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/cameras")

    let statusLine: String
    let headers: [(name: String, value: String)]
    let body: String

    init(_ name: String) throws {
        let text = try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
        self.init(text: text)
    }

    /// The DESCRIBE answer a camera of which only the SDP was recorded gives: that SDP (line ends made
    /// CRLF), with the Content-Base of `path`.
    init(sdp name: String, path: String) throws {
        let sdp = try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
            .split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).joined(separator: "\r\n")
        self.init(
            text: "RTSP/1.0 200 OK\r\nCSeq: 0\r\nContent-Type: application/sdp\r\n"
                + "Content-Base: rtsp://camera.invalid\(path)\r\nContent-Length: 0\r\n\r\n" + sdp)
    }

    private init(text: String) {
        let parts = text.components(separatedBy: "\r\n\r\n")
        var lines = parts[0].components(separatedBy: "\r\n")
        statusLine = lines.removeFirst()
        headers = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...]))
        }
        body = parts.dropFirst().joined(separator: "\r\n\r\n")
    }

    /// A header's value as recorded (leading blanks kept), or nil.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The answer to `cseq`, the camera's `rtsp://host[:port]` replaced by `rtsp://127.0.0.1:port`, and the
    /// headers named in `replacing` given those values (a UDP replay's Transport, with the replay's ports).
    func answer(cseq: Int, port: Int, replacing: [String: String] = [:]) -> [UInt8] {
        func local(_ text: String) -> String {
            text.replacingOccurrences(
                of: #"rtsp://[^/\s;,"]+"#, with: "rtsp://127.0.0.1:\(port)", options: .regularExpression)
        }
        let body = local(self.body)
        var text = statusLine + "\r\n"
        for (name, value) in headers {
            switch name.lowercased() {
            case "cseq": text += "\(name): \(cseq)\r\n"
            case "content-length": text += "\(name): \(body.utf8.count)\r\n"
            case let lowercased where replacing[lowercased] != nil:
                text += "\(name): \(replacing[lowercased] ?? "")\r\n"
            default: text += "\(name):\(local(value))\r\n"
            }
        }
        return Array((text + "\r\n" + body).utf8)
    }
}

/// The RTP of a fixture capture, renumbered as a camera's answers announce: its SSRC, its first sequence
/// number and RTP time.
enum FixtureStream {
    /// GStreamer's 90 H.264 pictures (Fixtures/captures/h264-gst.pcap; their frame MD5s from GStreamer's
    /// decoder are in Fixtures/expected/h264-gst.pcap.gst-frames.md5).
    static let packets = packets(of: "h264-gst.pcap", payloadType: 96)
    /// GStreamer's 90 H.265 pictures (Fixtures/captures/h265-gst-sll.pcap, frame MD5s beside the H.264 ones).
    static let h265Packets = packets(of: "h265-gst-sll.pcap", payloadType: 97)

    static func packets(of capture: String, payloadType: UInt8) -> [RTPPacket] {
        let path = RealServer.root.appendingPathComponent("Fixtures/captures/\(capture)").path
        guard var capture = try? CaptureFile(contentsOf: path) else { return [] }
        var packets: [RTPPacket] = []
        while let datagram = try? capture.nextDatagram() {
            if let packet = try? RTPPacket(datagram.payload), packet.payloadType == payloadType {
                packets.append(packet)
            }
        }
        return packets
    }

    static var expectedMD5s: [String] { expectedMD5s(of: "h264-gst.pcap") }

    static func expectedMD5s(of capture: String) -> [String] {
        let path = RealServer.root.appendingPathComponent("Fixtures/expected/\(capture).gst-frames.md5").path
        return ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    static func renumbered(
        ssrc: UInt32, firstSequence: UInt16, firstTimestamp: UInt32, codec: VideoCodec = .h264
    ) -> [[UInt8]] {
        let packets = codec == .h264 ? packets : h265Packets
        guard let base = packets.first else { return [] }
        return packets.enumerated().map { index, packet in
            RTPPacketBuilder(
                marker: packet.marker, payloadType: 96,
                sequenceNumber: firstSequence &+ UInt16(truncatingIfNeeded: index),
                timestamp: firstTimestamp &+ (packet.timestamp &- base.timestamp), ssrc: ssrc,
                payload: Array(packet.payload)
            ).bytes()
        }
    }
}
