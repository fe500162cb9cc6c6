import Foundation
import PacketCapture
import RTP
import RTPDumpCore
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
        #expect(lines.count == 2)
        #expect(lines[1].hasPrefix("0x74D8F7BF  96"))
    }

    @Test func filtersSelectByPortSSRCAndPayloadType() throws {
        func count(_ filter: StreamFilter) throws -> Int {
            var capture = try CaptureFile(contentsOf: Fixtures.capture("h264-ffmpeg.pcap"))
            return try StreamAnalyzer.analyze(&capture, filter: filter).streams.count
        }
        #expect(try count(StreamFilter(port: 5004)) == 1)
        #expect(try count(StreamFilter(port: 5000)) == 0)
        #expect(try count(StreamFilter(ssrc: 0x74D8_F7BF)) == 1)
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
        #expect(lines.count == 1100)
        #expect(lines[0].hasPrefix("0.000000 127.0.0.1:55543 > 127.0.0.1:5000 ssrc=0x5904FFF7 pt=96 seq="))
    }

    @Test func releaseOrderListingShowsLosses() throws {
        var capture = try CaptureFile(contentsOf: Fixtures.capture("h264-gst-dropped.pcap"))
        var lines: [String] = []
        try PacketListing.releaseOrder(
            &capture, filter: StreamFilter(), configuration: .init(), write: { lines.append($0) })
        #expect(lines.filter { $0.contains("LOSS") }.count == 7)
        #expect(lines.filter { $0.contains(" ext=") }.count == 1073)
    }

    @Test func rtspURLsAreRefusedWithAClearMessage() {
        let error = #expect(throws: RTPDumpError.self) { try CaptureInput.open("rtsp://user:secret@camera/stream") }
        #expect(error?.description.contains("RTSP") == true)
        #expect(error?.description.contains("secret") == false)
    }
}
