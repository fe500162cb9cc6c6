import FFmpegDecoding
import Foundation
import H26x
import PacketCapture
@_spi(SansIO) import RTSP
import RTSPClient
import TestSupport
import Testing
import VideoDecoding

/// An `RTP/SAVP` session whose SDP carries the key (SDES, `a=crypto`): the client asks for SAVP and
/// unprotects on its own. The SRTP is the real srtpenc capture (Fixtures/captures/h264-srtp.pcap), served
/// by the scripted server; the frames must be pylibsrtp + GStreamer's (h264-srtp.pcap.gst-frames.md5).
@Suite struct SRTPSessionTests {
    static let fixtures = RealServer.root.appendingPathComponent("Fixtures")

    static func srtpPackets(flipping flipped: Set<Int> = []) throws -> [[UInt8]] {
        var capture = try CaptureFile(contentsOf: fixtures.appendingPathComponent("captures/h264-srtp.pcap").path)
        var packets: [[UInt8]] = []
        while let datagram = try capture.nextDatagram() {
            guard datagram.destination.port == 5030 else { continue }
            var bytes = Array(datagram.payload)
            if flipped.contains(packets.count) { bytes[bytes.count - 11] ^= 0xFF }
            packets.append(bytes)
        }
        return packets
    }

    static func sdp(key: String) -> String {
        ScriptedServer.sdp.replacingOccurrences(of: "RTP/AVP 96", with: "RTP/SAVP 96")
            + "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key)|2^31\r\n"
    }

    static func key() throws -> String {
        let manifest =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: fixtures.appendingPathComponent("expected/h264-srtp.json"))) as? [String: Any]
        let hex = try #require(manifest?["key"] as? String)
        return Data(try #require(bytes(hex: hex))).base64EncodedString()
    }

    /// Plays the packets through a scripted SAVP server; returns the access units and the statistics.
    static func play(_ packets: [[UInt8]]) async throws -> ([AccessUnit], RTSPSessionStatistics, [String]) {
        let sdp = Self.sdp(key: try key())
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request, sdp: sdp)
            if request.method == "PLAY" { connection.sendInterleaved(packets) }
        }
        defer { Task { await server.stop() } }
        let session = try await RTSPSession.connect(to: server.url, options: ScriptedServerTests.quick)
        #expect(session.tracks.first?.transport?.profile == "RTP/SAVP/TCP")
        // The track carries the key (its a=crypto attribute); none of the ways to print it shows it.
        let key = try Self.key()
        #expect(session.tracks.first?.cryptoAttributes.first?.contains(key) == true)
        var dumped = ""
        dump(session.tracks, to: &dumped)
        for printed in ["\(session.tracks)", String(reflecting: session.tracks), dumped] {
            #expect(!printed.contains(key))
            #expect(!printed.contains(String(key.prefix(12))))
        }
        var units: [AccessUnit] = []
        var iterator = try session.accessUnits().makeAsyncIterator()
        // The last access unit ends with its marker bit; then the session goes quiet (noMedia).
        while let unit = try? await iterator.next() { units.append(unit) }
        let statistics = await session.statistics()
        await session.teardown()
        return (units, statistics, server.methods)
    }

    @Test func anSAVPSessionIsUnprotectedWithTheKeyFromItsSDP() async throws {
        let (units, statistics, _) = try await Self.play(try Self.srtpPackets())
        #expect(statistics.srtpAuthFailures == 0)
        let decoder = try FFmpegVideoDecoder(codec: .h264)
        var md5s: [String] = []
        for unit in units { try decoder.decode(unit) { md5s.append(FrameDigest.md5($0)) } }
        try decoder.drain { md5s.append(FrameDigest.md5($0)) }
        let expected = try String(
            contentsOf: Self.fixtures.appendingPathComponent("expected/h264-srtp.pcap.gst-frames.md5"), encoding: .utf8
        ).split(separator: "\n").map(String.init)
        #expect(md5s == expected)
    }

    @Test func tamperedPacketsAreCountedAndNeverDepacketized() async throws {
        let flipped: Set<Int> = [20, 400, 900]
        let (units, statistics, _) = try await Self.play(try Self.srtpPackets(flipping: flipped))
        #expect(statistics.srtpAuthFailures == flipped.count)
        #expect(statistics.tracks.first?.lost == Int64(flipped.count))  // they never arrived, as far as RTP goes
        #expect(units.reduce(0) { $0 + $1.lostPackets } == flipped.count)
    }
}
