import MediaPipeline
import Foundation
import PacketCapture
import RTP
import RTPDumpCore
import SDP
import Testing

@Suite struct ReportTests {
    static func streams(_ name: String) throws -> [StreamAnalyzer.Stream] {
        var capture = try CaptureFile(contentsOf: Fixtures.capture(name))
        return try StreamAnalyzer.analyze(&capture).streams
    }

    @Test func jsonHasTheDocumentedKeys() throws {
        let json = StreamReport.json(try Self.streams("h264-gst-reordered-dup.pcap"))
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        let keys = Set(rows.first?.keys.map { $0 } ?? [])
        for key in [
            "ssrc", "payloadType", "source", "destination", "packets", "lost", "duplicates", "reordered", "jitterMs",
            "durationSeconds",
        ] {
            #expect(keys.contains(key), "missing \(key)")
        }
        let damage = try Fixtures.damage("h264-gst-reordered-dup.pcap")
        #expect(rows.first?["duplicates"] as? Int == damage["duplicated"] as? Int)
        // Each packet damage.py delayed arrives after a higher sequence number: one reordering each.
        #expect(rows.first?["reordered"] as? Int == damage["delayed"] as? Int)
        #expect(StreamReport.json([]) == "[]\n")
    }

    @Test func tableHasOneRowPerStream() throws {
        let table = StreamReport.table(try Self.streams("h264-ffmpeg.pcap"))
        let lines = table.split(separator: "\n")
        let ssrc = try #require(try Fixtures.tsharkStreams("h264-ffmpeg.pcap").first?["ssrc"] as? Int)
        #expect(lines.count == 2)
        #expect(lines[1].hasPrefix("0x" + String(ssrc, radix: 16, uppercase: true) + "  96"))
    }

    /// Each stream names its codec: the SDP's for its payload type (and its clock for the jitter), else the
    /// static payload type's (RFC 3551), else H.264 or H.265 as its payloads show; unknown otherwise.
    @Test func streamsNameTheirCodec() throws {
        let cases: [(capture: String, sdp: Bool, codec: String?, clockRate: Int)] = [
            ("audio-aac-gst", true, "MPEG4-GENERIC", 48000), ("audio-latm-gst", true, "MP4A-LATM", 44100),
            ("audio-opus-ffmpeg", true, "opus", 48000), ("audio-l16-gst", true, "L16", 16000),
            ("audio-pcmu-gst", false, "PCMU", 8000), ("audio-pcma-gst", false, "PCMA", 8000),
            ("h264-gst", false, "H264", 90000), ("h265-gst-sll", false, "H265", 90000),
            ("audio-aac-gst", false, nil, 90000),  // a dynamic type no SDP describes
        ]
        for (name, sdp, codec, clockRate) in cases {
            var formats: [UInt8: MediaFormat] = [:]
            if sdp {
                let text = try String(contentsOfFile: Fixtures.capture(name + ".sdp"), encoding: .utf8)
                for format in try SessionDescription(text).media.compactMap(\.mediaFormat) {
                    formats[format.payloadType] = format
                }
            }
            var capture = try CaptureFile(contentsOf: Fixtures.capture(name + ".pcap"))
            let streams = try StreamAnalyzer.analyze(&capture, formats: formats).streams
            #expect(streams.count == 1, "\(name)")
            #expect(streams.first?.codec == codec, "\(name)")
            #expect(streams.first?.clockRate == clockRate, "\(name)")
            let table = StreamReport.table(streams).split(separator: "\n")
            #expect(table.first?.hasSuffix("CODEC") == true)
            #expect(table.last?.hasSuffix("  " + (codec ?? "-")) == true, "\(table)")
        }
    }

    @Test func filtersSelectByPortSSRCAndPayloadType() throws {
        func count(_ filter: StreamFilter) throws -> Int {
            var capture = try CaptureFile(contentsOf: Fixtures.capture("h264-ffmpeg.pcap"))
            return try StreamAnalyzer.analyze(&capture, filter: filter).streams.count
        }
        #expect(try count(StreamFilter(port: 5004)) == 1)
        #expect(try count(StreamFilter(port: 5000)) == 0)
        let ssrc = try #require(try Fixtures.tsharkStreams("h264-ffmpeg.pcap").first?["ssrc"] as? Int)
        #expect(try count(StreamFilter(ssrc: UInt32(ssrc))) == 1)
        #expect(try count(StreamFilter(ssrc: 1)) == 0)
        #expect(try count(StreamFilter(payloadType: 97)) == 0)
    }

    @Test func rtcpIsNotCountedAsAStream() throws {
        var capture = try CaptureFile(contentsOf: Fixtures.capture("h264-ffmpeg.pcap"))
        let analyzer = try StreamAnalyzer.analyze(&capture)
        #expect(analyzer.streams.count == 1)
        #expect(analyzer.rtcpPackets > 0)
    }

    @Test func packetListingHasOneLinePerPacket() throws {
        var capture = try CaptureFile(contentsOf: Fixtures.capture("h264-gst-reordered-dup.pcap"))
        var lines: [String] = []
        try PacketListing.arrivalOrder(&capture, filter: StreamFilter(), write: { lines.append($0) })
        let row = try #require(try Fixtures.tsharkStreams("h264-gst-reordered-dup.pcap").first)
        let ssrc = String(row["ssrc"] as? Int ?? 0, radix: 16, uppercase: true)
        let prefix = "0.000000 127.0.0.1:\(row["sourcePort"] ?? "") > 127.0.0.1:5000 ssrc=0x\(ssrc) pt=96 seq="
        #expect(lines.count == row["packets"] as? Int)
        #expect(lines[0].hasPrefix(prefix))
    }

    @Test func releaseOrderListingShowsLosses() throws {
        var capture = try CaptureFile(contentsOf: Fixtures.capture("h264-gst-dropped.pcap"))
        var lines: [String] = []
        try PacketListing.releaseOrder(
            &capture, filter: StreamFilter(), configuration: .init(), write: { lines.append($0) })
        let dropped = try Fixtures.damage("h264-gst-dropped.pcap")["dropped"] as? Int
        let lost = lines.filter { $0.contains("LOSS") }.compactMap {
            $0.split(separator: "count=").last.flatMap { Int($0) }
        }
        #expect(lost.reduce(0, +) == dropped)
        #expect(lines.filter { $0.contains(" ext=") }.count == (try Fixtures.tsharkPackets("h264-gst-dropped.pcap")))
    }

    @Test func rtspURLsAreRefusedWithAClearMessage() {
        let error = #expect(throws: RTPDumpError.self) { try CaptureInput.open("rtsp://user:secret@camera/stream") }
        #expect(error?.description.contains("RTSP") == true)
        #expect(error?.description.contains("secret") == false)
    }
}
