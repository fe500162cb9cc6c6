import Foundation
import PacketCapture
import RTP
import Testing

/// RTCP sender reports parsed from FFmpeg's captures against what tshark decoded from the same packets
/// (Fixtures/expected/*.rtcp-sr.tsv).
@Suite struct SenderReportTests {
    @Test(arguments: ["h264-ffmpeg.pcap", "h265-ffmpeg-ipv6.pcapng"])
    func senderReportsEqualTsharks(capture name: String) throws {
        let tsv = try String(
            contentsOf: Fixtures.expected.appendingPathComponent(name + ".rtcp-sr.tsv"), encoding: .utf8)
        let expected = tsv.split(separator: "\n").map { line -> [UInt64] in
            line.split(separator: "\t").map { field in
                field.hasPrefix("0x") ? UInt64(field.dropFirst(2), radix: 16) ?? 0 : UInt64(field) ?? 0
            }
        }
        var ours: [[UInt64]] = []
        var capture = try CaptureFile(contentsOf: Fixtures.capture(name))
        while let datagram = try capture.nextDatagram() {
            guard RTPPacket.looksLikeRTCP(datagram.payload) else { continue }
            for case .senderReport(let sr) in try RTCPPacket.parseCompound(datagram.payload) {
                ours.append([
                    UInt64(sr.ssrc), sr.ntpTimestamp >> 32, sr.ntpTimestamp & 0xFFFF_FFFF, UInt64(sr.rtpTimestamp),
                    UInt64(sr.packetCount), UInt64(sr.octetCount),
                ])
            }
        }
        #expect(!expected.isEmpty)
        #expect(ours == expected)
    }
}
