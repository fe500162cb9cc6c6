import MediaPipeline
import Foundation
import H26x
import RTPDumpCore
import PacketCapture
@_spi(SansIO) import RTP
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

    /// Access units carry the sender's capture time: each is the NTP time of the sender report tshark
    /// decoded, moved by the RTP time between the report and the unit (90 kHz), within a millisecond.
    @Test(arguments: ["h264-ffmpeg.pcap", "h265-ffmpeg-ipv6.pcapng"])
    func accessUnitsCarryTheWallClockOfTheSenderReports(capture name: String) throws {
        let tsv = try String(
            contentsOf: Fixtures.expected.appendingPathComponent(name + ".rtcp-sr.tsv"), encoding: .utf8)
        let reports = tsv.split(separator: "\n").map { line -> (ssrc: UInt32, seconds: Double, rtp: UInt32) in
            let f = line.split(separator: "\t")
            let ntpSeconds = Double(UInt64(f[1]) ?? 0) + Double(UInt64(f[2]) ?? 0) / 4_294_967_296
            return (UInt32(f[0].dropFirst(2), radix: 16) ?? 0, ntpSeconds - 2_208_988_800, UInt32(f[3]) ?? 0)
        }
        var streams = CaptureMediaStreams.video()
        var units: [(StreamKey, AccessUnit)] = []
        var capture = try CaptureFile(contentsOf: Fixtures.capture(name))
        while let datagram = try capture.nextDatagram() {
            streams.add(datagram, accessUnits: { units.append(($0, $1)) })
        }
        streams.finish(accessUnits: { units.append(($0, $1)) })
        #expect(units.count == 75)
        for (key, unit) in units {
            // FFmpeg sends its first report before the first packet: every unit has a time.
            let time = try #require(unit.captureTime).secondsSince1970
            for report in reports where report.ssrc == key.ssrc {
                let ticks = Int64(Int32(bitPattern: unit.rtpTimestamp &- report.rtp))
                #expect(abs(time - (report.seconds + Double(ticks) / 90_000)) < 0.001)
            }
        }
        // Without a report, no time.
        let withoutRTCP = AccessUnitStreamsWithoutRTCP.units(name)
        #expect(withoutRTCP.count == 75)
        #expect(withoutRTCP.allSatisfy { $0.captureTime == nil })
    }
}

/// The same capture with its RTCP left out.
enum AccessUnitStreamsWithoutRTCP {
    static func units(_ name: String) -> [AccessUnit] {
        var streams = CaptureMediaStreams.video()
        var units: [AccessUnit] = []
        guard var capture = try? CaptureFile(contentsOf: Fixtures.capture(name)) else { return [] }
        while let datagram = try? capture.nextDatagram() {
            guard !RTPPacket.looksLikeRTCP(datagram.payload) else { continue }
            streams.add(datagram, accessUnits: { units.append($1) })
        }
        streams.finish(accessUnits: { units.append($1) })
        return units
    }
}
