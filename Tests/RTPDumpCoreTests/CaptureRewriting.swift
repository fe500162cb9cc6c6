import Foundation
import PacketCapture
import RTP
import TestSupport

/// A fixture capture with its UDP payloads changed (or left out), written again as an Ethernet/IPv4 pcap with
/// the same times, addresses and ports: the damage a test needs that no sender makes on demand.
enum CaptureRewriting {
    /// `name`'s datagrams, each payload through `transform` (its index among the datagrams, its bytes; nil leaves
    /// it out), as the bytes of a pcap file.
    static func rewritten(_ name: String, transform: (_ index: Int, _ payload: [UInt8]) -> [UInt8]?) throws -> [UInt8] {
        try replacing(name) { (index: Int, payload: [UInt8]) -> [(payload: [UInt8], portOffset: UInt16)] in
            guard let changed = transform(index, payload) else { return [] }
            return [(changed, 0)]
        }
    }

    /// `name`'s datagrams, each replaced by what `transform` gives for it: payloads, each sent from the same
    /// address to the datagram's destination port plus an offset (1: its RTCP port), at the same time.
    static func replacing(
        _ name: String, transform: (_ index: Int, _ payload: [UInt8]) -> [(payload: [UInt8], portOffset: UInt16)]
    ) throws -> [UInt8] {
        var capture = try CaptureFile(contentsOf: Fixtures.capture(name))
        var records: [CaptureBytes.Record] = []
        var index = 0
        while let datagram = try capture.nextDatagram() {
            defer { index += 1 }
            for (payload, offset) in transform(index, Array(datagram.payload)) {
                let udp = CaptureBytes.udp(
                    sourcePort: datagram.source.port &+ offset, destinationPort: datagram.destination.port &+ offset,
                    payload: payload)
                let ip = CaptureBytes.ipv4(
                    source: v4(datagram.source.address), destination: v4(datagram.destination.address), payload: udp)
                let nanoseconds = datagram.time.nanoseconds
                records.append(
                    CaptureBytes.Record(
                        seconds: UInt32(truncatingIfNeeded: nanoseconds / 1_000_000_000),
                        fraction: UInt32(truncatingIfNeeded: nanoseconds % 1_000_000_000 / 1000),
                        frame: CaptureBytes.ethernet(ip)))
            }
        }
        return CaptureBytes.pcap(records)
    }

    /// Writes `bytes` to a new file in the temporary folder and returns its path.
    static func file(_ bytes: [UInt8], named name: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(name)")
        try Data(bytes).write(to: url)
        return url.path
    }

    private static func v4(_ address: IPAddress) -> UInt32 {
        if case .v4(let value) = address { return value }
        return 0x7F00_0001
    }

    /// An RTP packet with a header extension of `profile` and `data` (whole 32-bit words) put in after its CSRCs.
    static func withExtension(_ packet: [UInt8], profile: UInt16, data: [UInt8]) -> [UInt8] {
        guard packet.count >= 12, packet[0] & 0x10 == 0, data.count % 4 == 0 else { return packet }
        let headerEnd = 12 + 4 * Int(packet[0] & 0x0F)
        var out = Array(packet[..<headerEnd])
        out[0] |= 0x10
        out += CaptureBytes.be16(profile) + CaptureBytes.be16(UInt16(data.count / 4)) + data
        return out + packet[headerEnd...]
    }
}
