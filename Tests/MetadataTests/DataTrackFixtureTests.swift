import Foundation
import MediaPipeline
import Metadata
import PacketCapture
import RTP
import SDP
import Testing
import VideoDecoding

/// Data tracks on captures (Fixtures/scripts/make-data-fixtures.sh): KLV through GStreamer's rtpklvpay handed on
/// as raw units, and ONVIF metadata documents, plain and gzip-compressed; each against what the sender printed
/// it sent (expected/<capture>.sent-units.txt: bytes and MD5 per unit).
@Suite struct DataTrackFixtureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func sent(_ capture: String) throws -> [String] {
        try String(
            contentsOf: root.appendingPathComponent("Fixtures/expected/\(capture).pcap.sent-units.txt"), encoding: .utf8
        )
        .split(separator: "\n").map(String.init)
    }

    static func format(_ sdp: String) throws -> MediaFormat {
        let text = try String(contentsOf: root.appendingPathComponent("Fixtures/captures/\(sdp).sdp"), encoding: .utf8)
        return try #require(try SessionDescription(text).media.first?.mediaFormat)
    }

    static func units(_ capture: String, format: MediaFormat) throws -> (
        units: [MediaUnit], depacketizer: Depacketizer?
    ) {
        var file = try CaptureFile(contentsOf: root.appendingPathComponent("Fixtures/captures/\(capture).pcap").path)
        var pipeline = MediaPipeline(formats: [format])
        var units: [MediaUnit] = []
        while let datagram = try file.nextDatagram() {
            guard let packet = try? RTPPacket(datagram.payload) else { continue }
            pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: datagram.time))
            while let unit = pipeline.next() { units.append(unit) }
        }
        pipeline.finish()
        while let unit = pipeline.next() { units.append(unit) }
        return (units, pipeline.depacketizer(track: 0))
    }

    static func line(_ bytes: [UInt8]) -> String {
        var digest = MD5()
        digest.update(bytes)
        return "\(bytes.count) \(digest.finalize())"
    }

    @Test func klvUnitsAreHandedOnAsSent() throws {
        let format = try Self.format("data-klv-gst")
        #expect(format.kind == .application && format.encodingName == "smpte336m")
        let (units, depacketizer) = try Self.units("data-klv-gst", format: format)
        #expect(depacketizer?.payload == .raw)
        let raw = units.compactMap(\.rawUnit)
        #expect(raw.count == units.count)
        #expect(raw.map { Self.line($0.bytes) } == (try Self.sent("data-klv-gst")))
        #expect(
            raw.allSatisfy { $0.endedByMarker && $0.lostPackets == 0 && $0.payloadType == 98 && $0.clockRate == 90000 })
        #expect(zip(raw, raw.dropFirst()).allSatisfy { $1.timestamp - $0.timestamp == 9000 })
    }

    @Test(arguments: ["metadata-onvif", "metadata-onvif-gzip"])
    func onvifDocumentsAreTheSendersXML(capture: String) throws {
        let format = try Self.format(capture)
        #expect(format.kind == .metadata)
        let (units, depacketizer) = try Self.units(capture, format: format)
        #expect(depacketizer?.payload == .metadata)
        let documents = units.compactMap(\.metadataDocument)
        #expect(documents.count == units.count)
        #expect(documents.map { Self.line($0.bytes) } == (try Self.sent(capture)))
        #expect(documents.allSatisfy { $0.text?.hasPrefix("<?xml") == true && $0.lostPacketsBefore == 0 })
        #expect(zip(documents, documents.dropFirst()).allSatisfy { $1.timestamp - $0.timestamp == 9000 })
        #expect(depacketizer?.metadata?.statistics.droppedDocuments == 0)
    }

    /// Reordered and duplicated: every document. Dropped packets: the documents that lost a piece (or may
    /// have) are dropped and counted; every document handed on is one the sender sent, whole, in order.
    @Test func damagedMetadataGivesOnlyWholeDocuments() throws {
        let format = try Self.format("metadata-onvif")
        let sent = try Self.sent("metadata-onvif")
        let reordered = try Self.units("metadata-onvif-reordered-dup", format: format).units.compactMap(
            \.metadataDocument)
        #expect(reordered.map { Self.line($0.bytes) } == sent)
        let (units, depacketizer) = try Self.units("metadata-onvif-dropped", format: format)
        let documents = units.compactMap(\.metadataDocument)
        let dropped = try #require(depacketizer?.metadata?.statistics.droppedDocuments)
        #expect(dropped > 0 && documents.count + dropped >= sent.count - 1 && documents.count + dropped <= sent.count)
        var remaining = sent[...]
        for line in documents.map({ Self.line($0.bytes) }) {
            let found = try #require(remaining.firstIndex(of: line), "a document the sender never sent")
            remaining = remaining[(found + 1)...]
        }
        #expect(documents.contains { $0.lostPacketsBefore > 0 })
    }
}
