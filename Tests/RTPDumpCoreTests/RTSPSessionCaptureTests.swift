import RTSPClient
import Foundation
import PacketCapture
import RTPDumpCore
import SDP
import Testing
import VideoDecoding

/// Captures of real RTSP sessions (FFmpeg against gst-rtsp-server): the SDP and transports come from the
/// capture itself, and the frames equal GStreamer's from the same RTP (for TCP, rewritten as UDP by
/// Fixtures/scripts/interleaved_to_udp.py).
@Suite struct RTSPSessionCaptureTests {
    /// As `rtpdump` opens a capture.
    static func session(_ name: String) throws -> (RTSPSessionInfo, any DatagramSource) {
        let (source, info) = try CaptureInput.openWithSession(Fixtures.capture(name))
        return (try #require(info), source)
    }

    static func md5s(_ name: String) throws -> [String] {
        var (info, source) = try Self.session(name)
        let format = try #require(info.videoFormat)
        var md5s: [String] = []
        _ = try FrameDecoding.decode(
            &source, filter: StreamFilter(payloadType: format.payloadType), codec: nil, threads: 1,
            template: try SDPVideo.depacketizer(for: format)
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
        var plain = try CaptureFile(contentsOf: Fixtures.capture("h264-gst.pcap"))
        #expect(try RTSPSessionInfo.scan(&plain) == nil)
    }

    @Test(arguments: ["rtsp-h264-tcp.pcap", "rtsp-h264-udp.pcap"])
    func framesEqualGStreamersFromTheSameRTP(capture: String) throws {
        let expected = try FrameDecodingTests.expected(capture)
        #expect(expected.count == 89)
        #expect(try Self.md5s(capture) == expected)
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
