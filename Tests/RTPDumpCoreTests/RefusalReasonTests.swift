import Foundation
import RTP
import TestSupport
import Testing

/// When everything a stream carries is refused, the run says why, not that nothing was there: pictures of a
/// JPEG type this library does not take, a metadata document that inflates past its bound (a gzip bomb).
@Suite(.enabled(if: RTPDumpBinary.present)) struct RefusalReasonTests {
    /// mjpeg-420-gst.pcap with every payload's type-specific byte set to 1: interlaced fields (RFC 2435 3.1.1),
    /// which the depacketizer refuses.
    @Test(arguments: [["extract", "-o"], ["decode", "-o"]])
    func refusedPicturesAreToldWithTheirReason(command: [String]) async throws {
        let bytes = try CaptureRewriting.rewritten("mjpeg-420-gst.pcap") { _, payload in
            var payload = payload
            if payload.count > 12, payload[1] & 0x7F == 26 { payload[12] = 1 }
            return payload
        }
        let path = try CaptureRewriting.file(bytes, named: "interlaced.pcap")
        let output = MJPEGCommandTests.temporary(command[0] == "extract" ? "out.mjpeg" : "out.y4m")
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: output)
        }
        let run = try await RTPDumpBinary.run([command[0], path, command[1], output])
        #expect(run.status != 0)
        #expect(run.stderr.contains("no picture came out of"), "\(run.stderr)")
        #expect(run.stderr.contains("interlaced fields"), "\(run.stderr)")
        #expect(!run.stderr.contains("no H.264, H.265 or JPEG stream found"))
    }

    /// A gzip-compressed ONVIF document that inflates to 2 MiB (past the 1 MiB bound) is dropped, and `frames`
    /// says that it inflates past the bound.
    @Test func aGzipBombIsToldAsSuch() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bomb-\(UUID()).gz")
        _ = try await runProgram(
            "/usr/bin/python3",
            ["-c", "import gzip; open('\(file.path)','wb').write(gzip.compress(b'<a>' + bytes(2 << 20)))"])
        let compressed = [UInt8](try Data(contentsOf: file))
        try? FileManager.default.removeItem(at: file)
        #expect(compressed.count < 4000)
        let packet = RTPPacketBuilder(
            marker: true, payloadType: 107, sequenceNumber: 1, timestamp: 0, ssrc: 0xB0B, payload: compressed
        )
        .bytes()
        let udp = CaptureBytes.udp(sourcePort: 40000, destinationPort: 5084, payload: packet)
        let capture = CaptureBytes.pcap([
            CaptureBytes.Record(seconds: 1, fraction: 0, frame: CaptureBytes.ethernet(CaptureBytes.ipv4(payload: udp)))
        ])
        let path = try CaptureRewriting.file(capture, named: "bomb.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await RTPDumpBinary.run(["frames", path, "--sdp", Fixtures.capture("metadata-onvif-gzip.sdp")])
        #expect(run.stderr.contains("1 metadata documents dropped"), "\(run.stderr)")
        #expect(run.stderr.contains("inflates past"), "\(run.stderr)")
    }
}
