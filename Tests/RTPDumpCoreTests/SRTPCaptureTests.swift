import MediaPipeline
import Foundation
import H26x
import PacketCapture
import RTP
import RTPDumpCore
import SRTP
import TestSupport
import Testing
import VideoDecoding

/// The SRTP capture of a real sender (GStreamer's srtpenc, Fixtures/scripts/make-srtp-fixture.sh), against
/// pylibsrtp's decryption decoded by GStreamer (expected/h264-srtp.pcap.gst-frames.md5).
@Suite struct SRTPCaptureTests {
    static func key() throws -> SRTPKey {
        let manifest = try #require(try Fixtures.json("h264-srtp.json") as? [String: Any])
        let hex = try #require(manifest["key"] as? String)
        return try SRTPKey(suite: .aesCM128HMACSHA1_80, material: try #require(bytes(hex: hex)))
    }

    static func flipped() throws -> [UInt16] {
        let manifest = try #require(try Fixtures.json("h264-srtp.json") as? [String: Any])
        return try #require(manifest["flippedSequenceNumbers"] as? [Int]).map { UInt16($0) }
    }

    static func decode(_ capture: String) throws -> (md5s: [String], source: SRTPDatagrams) {
        let source = try SRTPDatagrams(try CaptureFile(contentsOf: Fixtures.capture(capture)), key: key())
        var datagrams: any ReceivedItemSource = source
        var md5s: [String] = []
        _ = try FrameDecoding.decode(&datagrams, filter: StreamFilter(port: 5030), codec: nil, threads: 1) {
            md5s.append(FrameDigest.md5($0))
        }
        return (md5s, source)
    }

    @Test func decryptedFramesEqualTheReferences() throws {
        let expected = try String(
            contentsOf: Fixtures.expected.appendingPathComponent("h264-srtp.pcap.gst-frames.md5"), encoding: .utf8
        ).split(separator: "\n").map(String.init)
        #expect(expected.count == 180)
        let run = try Self.decode("h264-srtp.pcap")
        #expect(run.md5s == expected)
        #expect(run.source.failures.isEmpty)
    }

    @Test func exactlyTheFlippedPacketsFailAndNoneOfTheirBytesGoOn() throws {
        let flipped = try Self.flipped()
        #expect(flipped.count == 40)
        let source = try SRTPDatagrams(
            try CaptureFile(contentsOf: Fixtures.capture("h264-srtp-flipped.pcap")), key: Self.key())
        var passed: [UInt16] = []
        while let datagram = try source.nextDatagram() {
            guard datagram.destination.port == 5030 else { continue }
            passed.append(try RTPPacket(datagram.payload).sequenceNumber)
        }
        #expect(source.totalFailures == flipped.count)
        #expect(Set(passed).isDisjoint(with: flipped))
        #expect(passed.count + flipped.count == 1485)
    }

    /// Three SRTP packets altered: a payload byte, a sequence-number byte, an SSRC byte. Each fails
    /// authentication and counts against the flow it arrived on; the one whose SSRC was changed counted
    /// against no stream before (srtpAuthFailures 2).
    @Test func aFailureCountsAgainstItsFlowWhateverSSRCItClaims() throws {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.capture("h264-srtp.pcap"))))
        var offset = 24
        var media = 0
        var altered: [Int] = []
        while offset + 16 <= bytes.count, altered.count < 3 {
            let length = Int(bytes[offset + 8]) | Int(bytes[offset + 9]) << 8 | Int(bytes[offset + 10]) << 16
            let frame = offset + 16
            let udp = frame + 14 + Int(bytes[frame + 14] & 0x0F) * 4
            let port = Int(bytes[udp + 2]) << 8 | Int(bytes[udp + 3])
            if port == 5030 {
                media += 1
                // The 100th, 200th and 300th media packet: payload, sequence number, SSRC.
                if media % 100 == 0 {
                    let rtp = udp + 8
                    bytes[[rtp + 20, rtp + 3, rtp + 9][altered.count]] ^= 0x5A
                    altered.append(media)
                }
            }
            offset = frame + length
        }
        #expect(altered.count == 3)
        let source = try SRTPDatagrams(try CaptureFile(bytes: bytes), key: Self.key())
        var analyzed: any ReceivedItemSource = source
        var analyzer = StreamAnalyzer(filter: StreamFilter(port: 5030))
        try analyzed.forEachItem { item in analyzer.add(item) }
        let stream = try #require(analyzer.streams.first)
        #expect(source.totalFailures == 3)
        #expect(source.failures(of: stream.key) == 3)
        #expect(stream.statistics.packets == 1485 - 3)
        #expect(StreamReport.json(analyzer.streams, srtp: source).contains("\"srtpAuthFailures\": 3"))
    }

    @Test func aWrongKeyFailsEveryPacket() throws {
        var bytes = [UInt8](repeating: 7, count: 30)
        bytes[0] = 1
        let source = try SRTPDatagrams(
            try CaptureFile(contentsOf: Fixtures.capture("h264-srtp.pcap")),
            key: SRTPKey(suite: .aesCM128HMACSHA1_80, material: bytes))
        #expect(try source.nextDatagram() == nil)
        #expect(source.totalFailures == 1487)
    }

    /// pylibsrtp protected 200 packets whose sequence numbers wrap (65436 ... 65535, 0 ... 99): only a
    /// receiver that counts the rollover computes the right index for those after the wrap.
    @Test func theRolloverCounterCarriesAcrossTheSequenceWrap() throws {
        let source = try SRTPDatagrams(try CaptureFile(contentsOf: Fixtures.capture("srtp-wrap.pcap")), key: Self.key())
        var sequence: [UInt16] = []
        while let datagram = try source.nextDatagram() {
            let packet = try RTPPacket(datagram.payload)
            sequence.append(packet.sequenceNumber)
            #expect(packet.payload.allSatisfy { $0 == UInt8(truncatingIfNeeded: sequence.count - 1) })
        }
        #expect(source.failures.isEmpty)
        #expect(sequence == (0..<200).map { UInt16(truncatingIfNeeded: 65436 + $0) })
    }

    @Test func aReplayedPacketIsRefused() throws {
        var capture = try CaptureFile(contentsOf: Fixtures.capture("h264-srtp.pcap"))
        let receiver = try SRTPReceiver(key: Self.key())
        var first: ArraySlice<UInt8>?
        while first == nil, let datagram = try capture.nextDatagram() {
            if datagram.destination.port == 5030 { first = datagram.payload }
        }
        let packet = try #require(first)
        let plain = try receiver.unprotect(packet)
        #expect(plain.count == packet.count - 10)  // the 80-bit tag removed
        #expect((try? RTPPacket(plain))?.payloadType == 96)
        #expect(throws: SRTPError.self) { try receiver.unprotect(packet) }
        #expect(receiver.replays == 1)
    }
}
