import MediaPipeline
@testable import RTSPCapture
import Foundation
import RTP
import RTSPClient
import SDP
import TestSupport
import Testing
import VideoDecoding

@_spi(SansIO) @testable import PacketCapture
@testable import RTPDumpCore

/// Captures of real RTSP sessions (FFmpeg against gst-rtsp-server): the SDP and transports come from the
/// capture itself, and the frames equal GStreamer's from the same RTP (for TCP, rewritten as UDP by
/// Fixtures/scripts/interleaved_to_udp.py).
@Suite struct RTSPSessionCaptureTests {
    /// As `rtpdump` opens a capture.
    static func session(_ name: String) throws -> (RTSPSessionInfo, any ReceivedItemSource) {
        try session(path: Fixtures.capture(name))
    }

    static func session(path: String) throws -> (RTSPSessionInfo, any ReceivedItemSource) {
        let (source, info) = try CaptureInput.openWithSession(path)
        return (try #require(info), source)
    }

    static func md5s(_ name: String) throws -> [String] { try md5s(path: Fixtures.capture(name)) }

    static func md5s(path: String) throws -> [String] {
        var (info, source) = try Self.session(path: path)
        let format = try #require(info.videoFormat)
        var md5s: [String] = []
        _ = try FrameDecoding.decode(
            &source, filter: StreamFilter(payloadType: format.payloadType), codec: nil, threads: 1,
            template: Depacketizer(format: .video(format)), followsFlows: true
        ) { md5s.append(FrameDigest.md5($0)) }
        return md5s
    }

    @Test func theSessionIsReadFromTheCapture() throws {
        let (tcp, _) = try Self.session("rtsp-h264-tcp.pcap")
        #expect(tcp.videoFormat?.codec == .h264)
        #expect(tcp.videoFormat?.packetizationMode == 1)
        #expect(tcp.rtpChannels == [0])
        let (udp, _) = try Self.session("rtsp-h264-udp.pcap")
        #expect(udp.rtpChannels.isEmpty)
        #expect(udp.clientRTPPorts.count == 1)
        #expect(try CaptureInput.openWithSession(Fixtures.capture("h264-gst.pcap")).session == nil)
    }

    @Test(arguments: ["rtsp-h264-tcp.pcap", "rtsp-h264-udp.pcap"])
    func framesEqualGStreamersFromTheSameRTP(capture: String) throws {
        let expected = try FrameDecodingTests.expected(capture)
        #expect(expected.count == 89)
        #expect(try Self.md5s(capture) == expected)
    }

    /// The same session with a new SSRC, sequence base and timestamp base every 30-odd packets, at access
    /// unit boundaries (Fixtures/scripts/ssrc_change.py): the track is followed across the 22 changes and
    /// every picture decodes as GStreamer decodes the clean capture. Keyed by SSRC, 4 of 89 came out.
    @Test func aTrackIsFollowedAcrossChangesOfSSRC() throws {
        #expect(
            try Self.md5s("rtsp-h264-udp-ssrc-change.pcap") == (try FrameDecodingTests.expected("rtsp-h264-udp.pcap")))
    }

    @Test func reorderedAndRetransmittedTCPSegmentsGiveTheSameFrames() throws {
        #expect(
            try Self.md5s("rtsp-h264-tcp-reordered-dup.pcap") == (try FrameDecodingTests.expected("rtsp-h264-tcp.pcap"))
        )
    }

    @Test func interleavedStreamsEqualTsharks() throws {
        var (_, source) = try Self.session("rtsp-h264-tcp.pcap")
        let streams = try StreamAnalyzer.analyze(&source).streams
        let expected = try #require(try Fixtures.tsharkStreams("rtsp-h264-tcp.pcap").first)
        #expect(streams.count == 1)
        #expect(Int(streams.first?.statistics.packets ?? 0) == expected["packets"] as? Int)
        #expect(Int(streams.first?.statistics.lost ?? -1) == expected["lost"] as? Int)
        #expect(Int(streams.first?.key.ssrc ?? 0) == expected["ssrc"] as? Int)
    }
}

/// The session is what the RTSP exchange says before the first media packet, read in the one pass over the
/// capture: datagrams that are not media (DNS, RTP of a static payload type such as G.711 audio) may come
/// first, up to ``RTSPSessionDatagrams/lookAheadLimit``, and everything read ahead is still handed on.
extension RTSPSessionCaptureTests {
    /// `capture` (a classic pcap of Ethernet frames) with `count` datagrams put before its first record:
    /// DNS queries and G.711 RTP (payload type 0) in turn, from another host.
    static func withDatagramsBefore(_ capture: String, count: Int) throws -> String {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.capture(capture))))
        let records = (0..<count).map { i in
            let payload: [UInt8] =
                i % 2 == 0
                ? [0x12, UInt8(i & 0xff), 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0] + Array("\u{6}camera\u{5}local\0".utf8)
                    + [0, 1, 0, 1]
                : [0x80, 0x00, 0, UInt8(i & 0xff), 0, 0, 0, 160, 0xAB, 0xCD, 0, 1]
                    + [UInt8](repeating: 0xD5, count: 160)
            let udp = CaptureBytes.udp(sourcePort: 40000, destinationPort: i % 2 == 0 ? 53 : 7078, payload: payload)
            return CaptureBytes.Record(
                seconds: 1_700_000_000, fraction: UInt32(i),
                frame: CaptureBytes.ethernet(CaptureBytes.ipv4(payload: udp)))
        }
        let noise = CaptureBytes.pcap(records).dropFirst(24)  // its records, behind the fixture's own header
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("noise-\(count)-\(UUID())-\(capture)")
            .path
        try Data(bytes[..<24] + noise + bytes[24...]).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: ["rtsp-h264-udp.pcap", "rtsp-h264-tcp.pcap"])
    func datagramsBeforeTheExchangeDoNotHideIt(capture: String) throws {
        let path = try Self.withDatagramsBefore(capture, count: 50)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (info, _) = try Self.session(path: path)
        #expect(info.videoFormat?.codec == .h264)
        #expect(try Self.md5s(path: path) == (try FrameDecodingTests.expected(capture)))
    }

    @Test func theLookAheadStopsAtItsLimit() throws {
        let limit = RTSPSessionDatagrams.lookAheadLimit.datagrams
        let path = try Self.withDatagramsBefore("rtsp-h264-udp.pcap", count: limit)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try CaptureInput.openWithSession(path).session == nil)
        let within = try Self.withDatagramsBefore("rtsp-h264-udp.pcap", count: limit - 1)
        defer { try? FileManager.default.removeItem(atPath: within) }
        #expect(try CaptureInput.openWithSession(within).session != nil)
    }

    /// What the look ahead read comes out first, in order and unchanged: the same datagrams as a plain
    /// reading of the capture.
    @Test(arguments: ["h264-gst.pcap", "rtsp-h264-udp.pcap", "noise"])
    func theDatagramsReadAheadAreHandedOnInOrder(capture: String) throws {
        let path =
            capture == "noise"
            ? try Self.withDatagramsBefore("rtsp-h264-udp.pcap", count: 30) : Fixtures.capture(capture)
        defer { if capture == "noise" { try? FileManager.default.removeItem(atPath: path) } }
        var (source, _) = try CaptureInput.openWithSession(path)
        var plain = try CaptureFile(contentsOf: path)
        var count = 0
        while true {
            let (ours, theirs) = (try source.nextDatagram(), try plain.nextDatagram())
            #expect(ours?.recordIndex == theirs?.recordIndex)
            #expect(ours?.payload.elementsEqual(theirs?.payload ?? []) ?? (theirs == nil))
            guard ours != nil, theirs != nil else { break }
            count += 1
        }
        #expect(count > 100)

        // the same through forEachDatagram, which takes plain records in one step once nothing waits
        var (each, _) = try CaptureInput.openWithSession(path)
        var records: [Int] = []
        var sizes: [Int] = []
        try each.forEachDatagram { datagram in
            records.append(datagram.recordIndex)
            sizes.append(datagram.payload.count)
        }
        var again = try CaptureFile(contentsOf: path)
        var expected: [(Int, Int)] = []
        while let datagram = try again.nextDatagram() {
            expected.append((datagram.recordIndex, datagram.payload.count))
        }
        #expect(records == expected.map(\.0))
        #expect(sizes == expected.map(\.1))
    }
}

/// A TCP connection that is not RTSP (here TLS) is dropped at its first bytes: nothing of it is held
/// afterwards, even data after a hole, while an RTSP connection goes on being read.
@Suite struct NonRTSPConnectionTests {
    static let (client, server, other) = (
        SocketAddress(address: .v4(1), port: 50000), SocketAddress(address: .v4(2), port: 554),
        SocketAddress(address: .v4(3), port: 443)
    )

    static func segment(_ to: SocketAddress, _ seq: UInt32, _ bytes: [UInt8]) -> TCPSegment {
        TCPSegment(
            recordIndex: 0, time: ArrivalTime(nanoseconds: 0), source: client, destination: to, sequenceNumber: seq,
            flags: .ack, payload: bytes[...], isTruncated: false)
    }

    @Test func aConnectionThatIsNotRTSPIsForgotten() {
        var connections = RTSPConnections()
        let tls: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]
        #expect(connections.add(Self.segment(Self.other, 1000, tls)).isEmpty)
        #expect(connections.reassembler.flowCount == 0)
        // after a hole: would be held, waiting for the hole to fill, if the flow were still read
        #expect(connections.add(Self.segment(Self.other, 5000, [UInt8](repeating: 0x17, count: 1400))).isEmpty)
        #expect(connections.reassembler.flowCount == 0)

        // As many such connections as there may be: what is remembered of them stays bounded, and none is
        // reassembled.
        for port in 0..<(RTSPConnections.maxRememberedNotRTSP + 10) {
            let from = SocketAddress(address: .v4(UInt32(7 << 24 | port)), port: UInt16(port & 0xffff))
            let segment = TCPSegment(
                recordIndex: 0, time: ArrivalTime(nanoseconds: 0), source: from, destination: Self.other,
                sequenceNumber: 1, flags: .ack, payload: tls[...], isTruncated: false)
            _ = connections.add(segment)
        }
        #expect(connections.notRTSP.count <= RTSPConnections.maxRememberedNotRTSP)
        #expect(connections.notRTSP.count > 0)
        #expect(connections.reassembler.flowCount == 0)

        let options = Array("OPTIONS rtsp://cam/ RTSP/1.0\r\nCSeq: 1\r\n\r\n".utf8)
        let frames = connections.add(Self.segment(Self.server, 1, options))
        #expect(frames.count == 1)
        #expect(connections.reassembler.flowCount == 1)
    }
}
