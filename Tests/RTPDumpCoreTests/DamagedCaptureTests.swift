import Foundation
import PacketCapture
import RTP
import RTPDumpCore
import Testing

/// Damaged variants (made by Fixtures/scripts/damage.py) against their clean source.
@Suite struct DamagedCaptureTests {
    struct Released: Equatable {
        var sequenceNumber: UInt16
        var bytes: [UInt8]
    }

    /// Everything the reorder path releases for a capture: packets in order, and the loss events.
    static func release(_ name: String) throws -> (packets: [Released], losses: [ReorderBuffer.Loss], rejected: Int) {
        var capture = try CaptureFile(contentsOf: Fixtures.capture(name))
        var ordered = OrderedPackets()
        var packets: [Released] = []
        var losses: [ReorderBuffer.Loss] = []
        let emit = { (event: OrderedPackets.Event) in
            switch event.output {
            case .packet(let p, _): packets.append(Released(sequenceNumber: p.sequenceNumber, bytes: Array(p.bytes)))
            case .loss(let loss): losses.append(loss)
            case .discontinuity: Issue.record("unexpected discontinuity in \(name)")
            }
        }
        while let datagram = try capture.nextDatagram() { ordered.add(datagram, emit: emit) }
        ordered.finish(emit: emit)
        return (packets, losses, ordered.rejected)
    }

    @Test func reorderedAndDuplicatedReleasesExactlyTheCleanPacketsInTheCleanOrder() throws {
        let damage = try Fixtures.damage("h264-gst-reordered-dup.pcap")
        #expect(damage["delayed"] as? Int ?? 0 > 0)
        #expect(damage["duplicated"] as? Int ?? 0 > 0)
        let clean = try Self.release("h264-gst.pcap")
        let variant = try Self.release("h264-gst-reordered-dup.pcap")
        #expect(clean.packets.count == (try Fixtures.tsharkPackets("h264-gst.pcap")))
        #expect(variant.packets == clean.packets)
        #expect(variant.losses.isEmpty)
    }

    @Test func droppedPacketsAreReportedAsExactlyThatMuchLoss() throws {
        let dropped = try #require(try Fixtures.damage("h264-gst-dropped.pcap")["dropped"] as? Int)
        let clean = try Self.release("h264-gst.pcap")
        let variant = try Self.release("h264-gst-dropped.pcap")
        #expect(variant.losses.reduce(0) { $0 + $1.count } == dropped)
        #expect(variant.packets.count == clean.packets.count - dropped)
        // What is released is the clean stream with those packets missing: nothing invented, nothing moved.
        let remaining = Set(variant.packets.map(\.sequenceNumber))
        #expect(clean.packets.filter { remaining.contains($0.sequenceNumber) } == variant.packets)
    }

    @Test func snaplenTruncatedPacketsNeverReachThePayloadPath() throws {
        let snapped = try #require(try Fixtures.damage("h264-gst-snaplen.pcap")["snappedRecords"] as? [Int])
        let variant = try Self.release("h264-gst-snaplen.pcap")
        #expect(variant.rejected == snapped.count)
        #expect(variant.losses.reduce(0) { $0 + $1.count } == snapped.count)
        var capture = try CaptureFile(contentsOf: Fixtures.capture("h264-gst-snaplen.pcap"))
        _ = try StreamAnalyzer.analyze(&capture)
        #expect(capture.warnings.snaplenTruncated == snapped.count)
    }

    @Test func aCaptureCutShortGivesItsCompleteRecordsAndAWarning() throws {
        let complete = try #require(try Fixtures.damage("h264-gst-truncated.pcap")["completeRecords"] as? Int)
        var capture = try CaptureFile(contentsOf: Fixtures.capture("h264-gst-truncated.pcap"))
        let streams = try StreamAnalyzer.analyze(&capture).streams
        #expect(streams.first?.statistics.packets == UInt64(complete))
        #expect(capture.warnings.truncatedAtEnd)
        #expect(CaptureInput.warningLines(capture.warnings).contains { $0.contains("cut short") })
    }

    @Test func randomRecordsAreSkippedAndAnAbsurdLengthIsAnError() throws {
        let damage = try Fixtures.damage("garbage-records.pcap")
        var capture = try CaptureFile(contentsOf: Fixtures.capture("garbage-records.pcap"))
        var analyzer = StreamAnalyzer()
        let error = #expect(throws: CaptureError.self) {
            while let datagram = try capture.nextDatagram() { analyzer.add(datagram) }
        }
        #expect(error?.code == .malformedRecord)
        #expect(error?.description.contains("record \(damage["absurdRecordIndex"] as? Int ?? -1)") == true)
        #expect(analyzer.streams.isEmpty)
    }

    @Test func randomBytesAreNotACapture() {
        let error = #expect(throws: CaptureError.self) {
            try CaptureFile(contentsOf: Fixtures.capture("garbage.bin"))
        }
        #expect(error?.code == .notACapture)
    }
}
