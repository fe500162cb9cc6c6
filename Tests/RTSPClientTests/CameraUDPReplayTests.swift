import MediaDecoding
import FFmpegDecoding
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
@_spi(SansIO) import RTP
@_spi(SansIO) import RTSP
import RTSPClient
import TestSupport
import Testing
import VideoDecoding

/// A camera recorded over UDP, replayed over UDP: its RTSP answers as recorded (only the ports rewritten to
/// the replay's), then GStreamer's 90 pictures sent from the server port its SETUP answer names to the
/// client port the client asked for, ending with an RTCP BYE.
@Suite(.serialized) struct CameraUDPReplayTests {
    /// The replaying server of H264DVR 1.0 (LV-IP22IR40DVBL) and the UDP socket its media comes from:
    /// `Cseq`, an rtpmap with a trailing blank, `a=framerate:0S`, `ssrc=0` in the SETUP answer (no source
    /// announced), a PLAY answer without RTP-Info, and SPS, PPS and SEI each in a packet of their own with
    /// the marker bit set.
    static func h264DVR(byeFirst: Bool = false) async throws -> (server: ScriptedServer, sender: any Channel) {
        let describe = try CameraTranscript("h264dvr_describe.txt")
        let setup = try CameraTranscript("h264dvr_setup_video.txt")
        let audioSetup = try CameraTranscript("h264dvr_setup_audio.txt")
        let play = try CameraTranscript("h264dvr_play.txt")
        let sender = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let serverPort = sender.localAddress?.port ?? 0
        let clientPort = NIOLockedValueBox(0)
        // The camera's packets: the DVR marks the SPS, PPS and SEI packets that open a picture. (GStreamer's
        // stream also repeats SPS and PPS between the slices of a key picture; those stay unmarked.)
        var stream = FixtureStream.renumbered(ssrc: 0x4456_5231, firstSequence: 1200, firstTimestamp: 90_000)
        var opensPicture = true
        var marked = 0
        for index in stream.indices {
            let packet = stream[index]
            let isFragment = packet[12] & 0x1F == 28
            let type = isFragment ? packet[13] & 0x1F : packet[12] & 0x1F
            let endsNAL = !isFragment || packet[13] & 0x40 != 0
            if [1, 5].contains(type) {
                opensPicture = false
            } else if opensPicture && [6, 7, 8].contains(type) && endsNAL {
                stream[index][1] |= 0x80
                marked += 1
            }
            if packet[1] & 0x80 != 0 { opensPicture = true }
        }
        #expect(marked >= 2)
        let packets = stream
        let server = try await ScriptedServer { request, connection in
            let port = connection.channel.localAddress?.port ?? 0
            let cseq = request.cseq ?? 0
            switch request.method {
            case "DESCRIBE": connection.send(describe.answer(cseq: cseq, port: port))
            case "SETUP":
                let asked = (request.header("Transport") ?? "").split(separator: ";")
                    .first { $0.hasPrefix("client_port=") }?.dropFirst("client_port=".count).split(separator: "-").first
                let rtp = asked.flatMap { Int($0) } ?? 0
                // trackID=3 is the video (the media goes to its port), trackID=4 the PCMA audio.
                guard case .request(_, let uri) = request.kind else { return }
                let isVideo = !uri.hasSuffix("trackID=4")
                if isVideo { clientPort.withLockedValue { $0 = rtp } }
                let transport =
                    "RTP/AVP;unicast;mode=PLAY;source=127.0.0.1;client_port=\(rtp)-\(rtp + 1);"
                    + "server_port=\(serverPort + (isVideo ? 0 : 2))-\(serverPort + (isVideo ? 1 : 3));ssrc=0"
                connection.send(
                    (isVideo ? setup : audioSetup).answer(cseq: cseq, port: port, replacing: ["transport": transport]))
            case "PLAY":
                connection.send(play.answer(cseq: cseq, port: port))
                let rtp = clientPort.withLockedValue { $0 }
                Self.send(packets, from: sender, to: rtp, byeFirst: byeFirst)
            default:
                connection.respond(
                    request, "200 OK", ["Session: 231970", "Public: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN"])
            }
        }
        return (server, sender)
    }

    /// Through the library: every picture decodes as GStreamer decodes it, none damaged, nothing lost.
    /// The BYE comes after the first packets and the media goes on for a second after it: the session ends once the
    /// track has
    /// been quiet, not at a fixed time after the BYE, and every picture is there (a fixed 300 ms lost the rest).
    @Test func mediaThatOutlastsTheByeIsPlayedToItsEnd() async throws {
        let (server, sender) = try await Self.h264DVR(byeFirst: true)
        defer {
            sender.close(promise: nil)
            Task { await server.stop() }
        }
        var options = ScriptedServerTests.quick
        options.transport = .udp
        options.inactivityTimeout = .seconds(5)
        // The kernel's largest receive buffer here (net.core.rmem_max, 4 MiB): a full parallel test run starves
        // the reader long enough for the default 512 KiB to overflow on loopback.
        options.udpReceiveBufferBytes = 4 << 20
        let session = try await RTSPSession.connect(to: "rtsp://127.0.0.1:\(server.port)/camera", options: options)
        var md5s: [String] = []
        for try await frame in try session.accessUnits().frames(decoder: try FFmpegVideoDecoder(codec: .h264)) {
            md5s.append(FrameDigest.md5(frame))
        }
        #expect(md5s == FixtureStream.expectedMD5s)
    }

    @Test func h264DVROverUDP() async throws {
        let (server, sender) = try await Self.h264DVR()
        defer {
            sender.close(promise: nil)
            Task { await server.stop() }
        }
        var options = ScriptedServerTests.quick
        options.transport = .udp
        options.inactivityTimeout = .seconds(5)
        // The kernel's largest receive buffer here (net.core.rmem_max, 4 MiB): a full parallel test run starves
        // the reader long enough for the default 512 KiB to overflow on loopback.
        options.udpReceiveBufferBytes = 4 << 20
        let session = try await RTSPSession.connect(to: "rtsp://127.0.0.1:\(server.port)/camera", options: options)
        #expect(session.tracks.map(\.format.kind) == [.video, .audio])
        var md5s: [String] = []
        for try await frame in try session.accessUnits().frames(decoder: try FFmpegVideoDecoder(codec: .h264)) {
            #expect(!frame.mayBeDamaged)
            md5s.append(FrameDigest.md5(frame))
        }
        #expect(md5s == FixtureStream.expectedMD5s)
        #expect(await session.statistics().tracks.first?.lost == 0)
        #expect(server.methods.last == "TEARDOWN")
    }

    /// Through `rtpdump decode URL --transport udp --md5`: one line per picture, each GStreamer's frame.
    @Test(.enabled(if: RTPDumpBinary.present)) func rtpdumpDecodesH264DVROverUDP() async throws {
        let (server, sender) = try await Self.h264DVR()
        defer {
            sender.close(promise: nil)
            Task { await server.stop() }
        }
        let url = "rtsp://127.0.0.1:\(server.port)/camera"
        let run = try await RTPDumpBinary.run(["decode", url, "--transport", "udp", "--md5"])
        #expect(run.status == 0, "\(run.stderr)")
        let md5s = run.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(md5s == FixtureStream.expectedMD5s)
        #expect(server.methods.last == "TEARDOWN")
    }

    /// The packets to the client's RTP port, paced (a burst of them all could overflow a socket's receive
    /// buffer: that would be loss, not the camera), then a BYE to its RTCP port. Scheduled on the socket's
    /// event loop, not in a task: tests that wait for a process hold the cooperative pool's few threads, and
    /// a task sending here then waited seconds for one (rtpdump gave up on the silent camera once).
    /// Sends `packets` in batches of 20, 20 ms apart (1000 packets a second: a burst the receiver's socket
    /// holds even while a parallel test run starves it; at 4000 a second, packets were lost on loopback), then
    /// an RTCP BYE; with `byeFirst`, the BYE after the first batch (as RTP and RTCP may cross on the way: the
    /// media outlasts the BYE by a second).
    static func send(_ packets: [[UInt8]], from channel: any Channel, to port: Int, byeFirst: Bool = false) {
        guard let rtp = try? SocketAddress(ipAddress: "127.0.0.1", port: port),
            let rtcp = try? SocketAddress(ipAddress: "127.0.0.1", port: port + 1)
        else { return }
        let batches = stride(from: 0, to: packets.count, by: 20).map { packets[$0..<min($0 + 20, packets.count)] }
        let spacing: Int64 = 20
        for (index, batch) in batches.enumerated() {
            channel.eventLoop.scheduleTask(in: .milliseconds(spacing * Int64(index))) {
                for packet in batch {
                    channel.write(AddressedEnvelope(remoteAddress: rtp, data: ByteBuffer(bytes: packet)), promise: nil)
                }
                channel.flush()
            }
        }
        var bye = RTCPCompoundBuilder()
        bye.appendGoodbye(ssrcs: [0x4456_5231])
        let goodbye = AddressedEnvelope(remoteAddress: rtcp, data: ByteBuffer(bytes: bye.bytes))
        channel.eventLoop.scheduleTask(in: .milliseconds(byeFirst ? 10 : spacing * Int64(batches.count))) {
            channel.writeAndFlush(goodbye, promise: nil)
        }
    }
}
