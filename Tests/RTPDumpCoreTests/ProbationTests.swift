import Foundation
import PacketCapture
import RTP
import RTPDumpCore
import TestSupport
import Testing

/// A stream that loses every other packet never has two sequence numbers in a row, so it never passes
/// RFC 3550 probation. Where the flow is known to be RTP (a session's track, a port the user named) it is
/// counted with its loss, as tshark counts it; in a bare capture it is listed apart, never hidden.
@Suite struct ProbationTests {
    /// 40 RTP packets to port 5004 numbered 100, 102, ... 178 (39 lost between them).
    static let capture: [UInt8] = CaptureBytes.pcap(
        (0..<40).map { i in
            let rtp = RTPPacketBuilder(
                payloadType: 96, sequenceNumber: UInt16(100 + 2 * i), timestamp: UInt32(i) * 3000, ssrc: 0xABCD_0001,
                payload: [0x65, 0x88, 0x84]
            ).bytes()
            let frame = CaptureBytes.ethernet(
                CaptureBytes.ipv4(
                    source: 0x7F00_0001, destination: 0x7F00_0001,
                    payload: CaptureBytes.udp(sourcePort: 40000, destinationPort: 5004, payload: rtp)))
            return CaptureBytes.Record(seconds: UInt32(i / 30), fraction: UInt32(i % 30) * 33_333, frame: frame)
        })

    static func analyze(probation: Bool) throws -> StreamAnalyzer {
        var capture = try CaptureFile(bytes: Self.capture)
        return try StreamAnalyzer.analyze(&capture, probation: probation)
    }

    @Test func aKnownFlowIsCountedWithItsLoss() throws {
        let analyzer = try Self.analyze(probation: false)
        let stream = try #require(analyzer.streams.first)
        #expect(stream.statistics.packets == 40)
        #expect(stream.statistics.lost == 39)  // RFC 3550 A.3: expected 79 (100...178), received 40
        #expect(analyzer.unvalidated.isEmpty)
    }

    @Test func inABareCaptureItIsListedApartNotHidden() throws {
        let analyzer = try Self.analyze(probation: true)
        #expect(analyzer.streams.isEmpty)
        #expect(analyzer.unvalidated.map(\.statistics.packets) == [40])
    }

    /// tshark, told that port 5004 is RTP, counts the same packets and loss (Fixtures/scripts/tshark_streams.py).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tshark")))
    func tsharkCountsTheSameLoss() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("probation-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(Self.capture).write(to: directory.appendingPathComponent("every-other.pcap"))
        let script = Fixtures.root.appendingPathComponent("Fixtures/scripts/tshark_streams.py").path
        let tshark = try await runProgram("/usr/bin/python3", [script, directory.path, directory.path])
        #expect(tshark.status == 0, "\(tshark.stderr)")
        let rows = try JSONSerialization.jsonObject(
            with: Data(contentsOf: directory.appendingPathComponent("every-other.pcap.streams.json")))
        let row = try #require((rows as? [[String: Any]])?.first)
        let ours = try #require(try Self.analyze(probation: false).streams.first)
        #expect(row["packets"] as? Int == Int(ours.statistics.packets))
        #expect(row["lost"] as? Int == Int(ours.statistics.lost))
    }

    /// rtpdump: the table leaves it out and stderr says why and what to do; with --port it is a row.
    @Test(.enabled(if: RTPDumpBinary.present)) func rtpdumpNamesTheFlowAndCountsItWithPort() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("every-other-\(getpid()).pcap").path
        try Data(Self.capture).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bare = try await RTPDumpBinary.run(["streams", path])
        #expect(bare.stderr.contains("SSRC 0xABCD0001 127.0.0.1:40000 -> 127.0.0.1:5004 looks like RTP (40 packets)"))
        #expect(!bare.stdout.contains("0xABCD0001"))
        let named = try await RTPDumpBinary.run(["streams", path, "--port", "5004", "--json"])
        #expect(named.status == 0)
        #expect(named.stdout.contains("\"packets\": 40") && named.stdout.contains("\"lost\": 39"))
    }
}
