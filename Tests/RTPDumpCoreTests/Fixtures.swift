import Foundation
import PacketCapture

/// Paths to the project's fixtures and to the shared real-world captures.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let captures = root.appendingPathComponent("Fixtures/captures")
    static let expected = root.appendingPathComponent("Fixtures/expected")
    /// `../shared/fixtures/real`, beside the repository; absent on machines without it.
    static let real = root.deletingLastPathComponent().appendingPathComponent("shared/fixtures/real")

    static func capture(_ name: String) -> String { captures.appendingPathComponent(name).path }

    /// The captures tshark has expected values for.
    static let withTsharkReference = [
        "h264-gst.pcap", "h265-gst-sll.pcap", "h264-ffmpeg.pcap", "h265-ffmpeg-ipv6.pcapng",
        "h264-gst-reordered-dup.pcap", "h264-gst-dropped.pcap", "h264-gst-truncated.pcap", "h264-gst-snaplen.pcap",
        "rtsp-h264-udp.pcap",
    ]

    static func json(_ name: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: expected.appendingPathComponent(name)))
    }

    /// tshark's rows for a capture (see Fixtures/scripts/tshark_streams.py).
    static func tsharkStreams(_ name: String) throws -> [[String: Any]] {
        try json(name + ".streams.json") as? [[String: Any]] ?? []
    }

    /// tshark's packet count for the first stream of a capture.
    static func tsharkPackets(_ name: String) throws -> Int {
        try tsharkStreams(name).first?["packets"] as? Int ?? -1
    }

    /// What damage.py recorded about a damaged variant.
    static func damage(_ name: String) throws -> [String: Any] {
        let all = try json("damage.json") as? [String: Any]
        return all?[name] as? [String: Any] ?? [:]
    }
}
