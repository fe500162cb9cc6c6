import Foundation
import PacketCapture
import RTPDumpCore
import Testing

/// `rtpdump streams` against what `tshark -z rtp,streams` reported for the same captures
/// (Fixtures/expected/*.streams.json, made by Fixtures/scripts/tshark_streams.py).
@Suite struct StreamsMatchTsharkTests {
    struct Row: Equatable, CustomStringConvertible {
        var ssrc: Int, payloadType: Int, source: String, destination: String, packets: Int, lost: Int
        var description: String {
            "0x\(String(ssrc, radix: 16)) pt \(payloadType) \(source)->\(destination) \(packets)/\(lost)"
        }
    }

    static func ours(_ path: String) throws -> [Row] {
        var capture = try CaptureFile(contentsOf: path)
        let streams = try StreamAnalyzer.analyze(&capture).streams
        // Parse our own JSON output, so the test covers the report a user reads.
        let data = Data(StreamReport.json(streams).utf8)
        let rows = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return rows.map { o in
            Row(
                ssrc: o["ssrc"] as? Int ?? -1, payloadType: o["payloadType"] as? Int ?? -1,
                source: o["source"] as? String ?? "", destination: o["destination"] as? String ?? "",
                packets: o["packets"] as? Int ?? -1, lost: o["lost"] as? Int ?? -1)
        }
    }

    static func tshark(_ name: String) throws -> [Row] {
        let rows = try #require(try Fixtures.json(name + ".streams.json") as? [[String: Any]])
        return rows.map { o in
            func endpoint(_ address: String, _ port: Int) -> String {
                address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
            }
            return Row(
                ssrc: o["ssrc"] as? Int ?? -2, payloadType: o["payloadType"] as? Int ?? -2,
                source: endpoint(o["sourceAddress"] as? String ?? "", o["sourcePort"] as? Int ?? 0),
                destination: endpoint(o["destinationAddress"] as? String ?? "", o["destinationPort"] as? Int ?? 0),
                packets: o["packets"] as? Int ?? -2, lost: o["lost"] as? Int ?? -2)
        }
    }

    @Test(arguments: Fixtures.withTsharkReference)
    func packetsAndLossEqualTsharks(capture name: String) throws {
        // tshark also lists single-packet "streams" it was told are RTP by the RTSP SETUP it saw (FFmpeg's
        // NAT punch packet, SSRC 0, sent from the client to the server). rtpdump calls a flow RTP only once
        // two packets arrive in sequence (RFC 3550 A.1 probation), so those rows are not compared.
        let expected = try Self.tshark(name).filter { $0.packets > 1 }
        #expect(!expected.isEmpty)
        #expect(try Self.ours(Fixtures.capture(name)) == expected)
    }

    /// tshark: 3896 packets, 1 lost (see ../shared/fixtures/real/README.md).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: Fixtures.real.path)))
    func realCameraCaptureMatchesTshark() throws {
        let rows = try Self.ours(Fixtures.real.appendingPathComponent("camera-h264-2011.pcap").path)
        #expect(
            rows == [
                Row(
                    ssrc: 0x693D_C6CC, payloadType: 96, source: "192.168.0.101:5018", destination: "85.17.186.6:53134",
                    packets: 3896, lost: 1)
            ])
    }
}
