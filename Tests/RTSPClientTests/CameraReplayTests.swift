import MediaDecoding
import FFmpegDecoding
import Foundation
import NIOConcurrencyHelpers
import NIOCore
@_spi(SansIO) import RTP
@_spi(SansIO) import RTSP
import RTSPClient
import SDP
import TestSupport
import Testing
import VideoDecoding

/// Real cameras' RTSP dialects, replayed: a scripted server answers with each camera's recorded bytes
/// (`CameraTranscript`), then streams GStreamer's 90 H.264 pictures renumbered as the camera's answers
/// announce (its SSRC, sequence and RTP time), ending with an RTCP BYE. Through `RTSPSession`, as a user
/// plays a camera, every picture must decode as GStreamer decodes the same RTP.
@Suite struct CameraReplayTests {
    struct Camera: Sendable, CustomTestStringConvertible {
        let name: String
        /// The transcripts: OPTIONS, DESCRIBE, SETUP of the video track, PLAY (nil: a plain answer, for the
        /// cameras of which only the DESCRIBE answer was recorded). The SETUP of an audio track gets
        /// ``audioSetup`` when it was recorded, else the Transport asked for echoed.
        let options: String?
        let describe: String
        let setup: String?
        let play: String?
        /// The path the camera was played at (its Content-Base's).
        let path: String
        /// The video's payload type in the camera's SDP.
        let payloadType: UInt8
        /// Where the stream starts, as the answers say (SSRC: the announced one, else one of the replay's).
        let ssrc: UInt32
        let firstSequence: UInt16
        let firstTimestamp: UInt32
        /// The audio tracks the SDP offers in codecs the library takes, in the SDP's order (read by hand).
        var audio: [AudioCodec] = []
        /// Whether the audio comes before the video in the SDP.
        var audioFirst = false
        var audioSetup: String? = nil
        /// Reolink: RTP of an older session comes first on the new connection.
        var olderSessionFirst = false
        var codec = VideoCodec.h264
        var testDescription: String { name }
    }

    static let cameras = [
        Camera(
            name: "Reolink (live555; SSRC only in RTP-Info; an older session's RTP first)", options: nil,
            describe: "reolink_describe.txt", setup: "reolink_setup.txt", play: "reolink_play.txt",
            path: "/h264Preview_01_main/", payloadType: 96, ssrc: 0xDCC4_A0D8, firstSequence: 16852,
            firstTimestamp: 1_070_938_629, audio: [.aac], olderSessionFirst: true),
        Camera(
            name: "Hikvision (absolute control URLs with a query; Session with eight blanks; ssrc= in Transport)",
            options: nil, describe: "hikvision_describe.txt", setup: "hikvision_setup.txt", play: "hikvision_play.txt",
            path: "/Streaming/Channels/101/", payloadType: 96, ssrc: 0x4CAC_C3D1, firstSequence: 24104,
            firstTimestamp: 1_270_711_678),
        Camera(
            name: "Dahua (Content-Base with a query then /; H.264, AAC and ONVIF metadata; RTP-Info of three tracks)",
            options: "dahua_options.txt", describe: "dahua_describe_h264_aac_onvif.txt", setup: "dahua_setup.txt",
            play: "dahua_play.txt", path: "/cam/realmonitor?channel=1&subtype=1&unicast=true&proto=Onvif/",
            payloadType: 96, ssrc: 0x30A9_8EE7, firstSequence: 47121, firstTimestamp: 3_475_222_385, audio: [.aac]),
        Camera(
            name: "GW4089IP (Content-Base with a query and no /; Session 'id; timeout=60'; RTP-Info of another path)",
            options: nil, describe: "gw_main_describe.txt", setup: "gw_main_setup_video.txt", play: "gw_main_play.txt",
            path: "/H264?channel=1&subtype=0&unicast=true&proto=Onvif", payloadType: 96, ssrc: 0x0102_0304,
            firstSequence: 271, firstTimestamp: 1_621_990_950, audio: [.pcmu], audioSetup: "gw_main_setup_audio.txt"),
        Camera(
            name: "Wowza 4.8 (audio track first; video payload type 97)", options: nil, describe: "bunny_describe.txt",
            setup: "bunny_setup.txt", play: "bunny_play.txt", path: "/vod/mp4:BigBuckBunny_115k.mov/", payloadType: 97,
            ssrc: 0x0A0B_0C0D, firstSequence: 1, firstTimestamp: 0, audio: [.aac], audioFirst: true),
        Camera(
            name: "Foscam (live555 2014; an audio m= without rtpmap)", options: nil, describe: "foscam_describe.txt",
            setup: nil, play: nil, path: "/videoMain/", payloadType: 96, ssrc: 0x0F05_CA30, firstSequence: 500,
            firstTimestamp: 12345, audio: [.pcmu]),
        Camera(
            name: "VStarcam (garbage sprop-parameter-sets: the in-band sets decode; 'Cseq'; no Content-Base)",
            options: nil, describe: "vstarcam_describe.txt", setup: nil, play: nil, path: "/", payloadType: 96,
            ssrc: 0x05A5_CA40, firstSequence: 65000, firstTimestamp: 4_294_000_000, audio: [.pcma]),
        // Cameras of which only the SDP was recorded: answered with it, set up and played plainly.
        Camera(
            name: "Anpviz (packetization-mode=0 declared, FU-A sent; an MPEG4-GENERIC audio track on payload type 0)",
            options: nil, describe: "anpviz_sdp.txt", setup: nil, play: nil, path: "/live/", payloadType: 96,
            ssrc: 0x0A0E_0001, firstSequence: 7, firstTimestamp: 3000, audio: [.aac]),
        Camera(
            name: "Ubiquiti (AAC and Opus tracks before the video; video payload type 97; an fmtp ending in ';')",
            options: nil, describe: "ubiquiti_sdp.txt", setup: nil, play: nil, path: "/stream/", payloadType: 97,
            ssrc: 0x0B1C_0001, firstSequence: 30_000, firstTimestamp: 1, audio: [.aac, .opus], audioFirst: true),
        Camera(
            name: "Geovision (absolute control URLs; an ONVIF metadata track; video payload type 105)",
            options: nil, describe: "geovision_sdp.txt", setup: nil, play: nil, path: "/media/video1/",
            payloadType: 105, ssrc: 0x0E0F_0001, firstSequence: 2, firstTimestamp: 0),
        Camera(
            name: "TP-Link Tapo (H.265; a PCMA track; an application track the vendor names)", options: nil,
            describe: "tplink_sdp.txt", setup: nil, play: nil, path: "/stream1/", payloadType: 96,
            ssrc: 0x7A90_0001, firstSequence: 40_000, firstTimestamp: 5_000_000, audio: [.pcma], codec: .h265),
    ]

    /// The replaying server for `camera`.
    static func replay(_ camera: Camera) async throws -> ScriptedServer {
        let answers = (
            options: try camera.options.map(CameraTranscript.init),
            describe: camera.describe.hasSuffix("_sdp.txt")
                ? try CameraTranscript(sdp: camera.describe, path: camera.path) : try CameraTranscript(camera.describe),
            setup: try camera.setup.map(CameraTranscript.init), play: try camera.play.map(CameraTranscript.init),
            audioSetup: try camera.audioSetup.map(CameraTranscript.init)
        )
        // The video's SETUP is the one for its control URL (the part after any `rtsp://host:port`).
        let control = try #require(
            SessionDescription(answers.describe.body).media.first { $0.videoFormat != nil }?.control)
        let videoControl = control.replacingOccurrences(of: #"^rtsp://[^/]+"#, with: "", options: .regularExpression)
        // The interleaved channels the video's SETUP agreed on: where its RTP goes.
        let videoChannel = NIOLockedValueBox<UInt8>(0)
        let session =
            answers.setup?.header("Session")?.split(separator: ";").first.map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            ?? "1"
        let stream = FixtureStream.renumbered(
            ssrc: camera.ssrc, firstSequence: camera.firstSequence, firstTimestamp: camera.firstTimestamp,
            codec: camera.codec
        ).map { bytes -> [UInt8] in
            var bytes = bytes
            bytes[1] = bytes[1] & 0x80 | camera.payloadType
            return bytes
        }
        let older =
            camera.olderSessionFirst
            ? FixtureStream.renumbered(ssrc: 0x5EED_0001, firstSequence: 9000, firstTimestamp: 77).prefix(40).map { $0 }
            : []
        return try await ScriptedServer { request, connection in
            let port = connection.channel.localAddress?.port ?? 0
            let cseq = request.cseq ?? 0
            switch request.method {
            case "OPTIONS" where answers.options != nil:
                connection.send(answers.options?.answer(cseq: cseq, port: port) ?? [])
            case "DESCRIBE": connection.send(answers.describe.answer(cseq: cseq, port: port))
            case "SETUP":
                // The recorded answers were of sessions whose tracks came in another order: their channels
                // are rewritten to those asked for, as their addresses are.
                let asked = request.header("Transport") ?? ""
                let channels = TransportHeader(asked).interleavedChannels
                guard case .request(_, let uri) = request.kind else { return }
                let isVideo = uri.contains(videoControl)
                if isVideo { videoChannel.withLockedValue { $0 = channels?.rtp ?? 0 } }
                let recorded = isVideo ? answers.setup : answers.audioSetup
                if let recorded, let channels {
                    let transport = (recorded.header("Transport") ?? "").replacingOccurrences(
                        of: #"interleaved=\d+-\d+"#, with: "interleaved=\(channels.rtp)-\(channels.rtcp)",
                        options: .regularExpression)
                    connection.send(recorded.answer(cseq: cseq, port: port, replacing: ["transport": transport]))
                } else {
                    connection.respond(request, "200 OK", ["Session: \(session)", "Transport: \(asked)"])
                }
            case "PLAY":
                if let play = answers.play {
                    connection.send(play.answer(cseq: cseq, port: port))
                } else {
                    connection.respond(request, "200 OK", ["Session: \(session)"])
                }
                let channel = videoChannel.withLockedValue { $0 }
                connection.sendInterleaved(older, channel: channel)
                connection.sendInterleaved(stream, channel: channel)
                var bye = RTCPCompoundBuilder()
                bye.appendGoodbye(ssrcs: [camera.ssrc])
                connection.sendInterleaved([bye.bytes], channel: channel + 1)
            default:
                connection.respond(
                    request, "200 OK",
                    ["Session: \(session)", "Public: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN, GET_PARAMETER"])
            }
        }
    }

    @Test(arguments: cameras)
    func everyPictureDecodesAsGStreamerDecodesIt(camera: Camera) async throws {
        #expect(FixtureStream.packets.count == 1079 && FixtureStream.h265Packets.count == 1011)
        let server = try await Self.replay(camera)
        defer { Task { await server.stop() } }
        var options = ScriptedServerTests.quick
        options.inactivityTimeout = .seconds(5)
        let session = try await RTSPSession.connect(
            to: "rtsp://127.0.0.1:\(server.port)\(camera.path)", options: options)
        // Every track the library takes is set up: the video and the audio, in the SDP's order.
        let video = try #require(session.tracks.firstIndex { $0.format.kind == .video })
        #expect(session.tracks.compactMap(\.format.audioFormat?.codec) == camera.audio)
        #expect(session.tracks.count == 1 + camera.audio.count)
        #expect(video == (camera.audioFirst ? camera.audio.count : 0))
        #expect(session.tracks[video].format.payloadType == camera.payloadType)
        var md5s: [String] = []
        let decoder = try FFmpegVideoDecoder(codec: camera.codec)
        for try await frame in try session.accessUnits().frames(decoder: decoder) {
            #expect(!frame.mayBeDamaged)
            md5s.append(FrameDigest.md5(frame))
        }
        #expect(md5s == FixtureStream.expectedMD5s(of: camera.codec == .h264 ? "h264-gst.pcap" : "h265-gst-sll.pcap"))
        let statistics = await session.statistics()
        #expect(statistics.tracks[video].staleSourcePackets == (camera.olderSessionFirst ? 40 : 0))
        #expect(server.methods.last == "TEARDOWN")
    }

    /// The same replays through `rtpdump decode URL --md5`: one line per picture, each GStreamer's frame, and
    /// the session torn down.
    @Test(.enabled(if: RTPDumpBinary.present), arguments: cameras)
    func rtpdumpDecodesEveryPicture(camera: Camera) async throws {
        let server = try await Self.replay(camera)
        defer { Task { await server.stop() } }
        let url = "rtsp://127.0.0.1:\(server.port)\(camera.path)"
        let run = try await RTPDumpBinary.run(["decode", url, "--md5"])
        #expect(run.status == 0, "\(run.stderr)")
        let md5s = run.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(md5s == FixtureStream.expectedMD5s(of: camera.codec == .h264 ? "h264-gst.pcap" : "h265-gst-sll.pcap"))
        #expect(server.methods.last == "TEARDOWN")
    }

    /// Cameras that start a new SSRC every GOP (Uniview) or after an encoder restart: here every 30
    /// pictures, at a picture boundary, a new SSRC, sequence base and timestamp base (the fixture has one
    /// keyframe). The track follows each change (a discontinuity) and every picture decodes as GStreamer
    /// decodes it. The frames after the first change are flagged as maybe damaged: a change of source
    /// between keyframes may have lost the pictures they refer to (here it did not, but the decoder cannot
    /// know); the first frame after each change is flagged as a discontinuity.
    @Test func aCameraThatStartsANewSourceEveryGOPIsFollowed() async throws {
        var packets: [[UInt8]] = []
        var source: (ssrc: UInt32, sequence: UInt16, timestamp: UInt32) = (0x5000_0000, 100, 1000)
        var pictures = 0
        var changes = 0
        for packet in FixtureStream.packets {
            if pictures > 0 && pictures % 30 == 0 && (try? RTPPacket(packets[packets.count - 1]))?.marker == true {
                changes += 1
                // A restarted encoder numbers from anywhere; behind the old numbers is the case a reorder
                // buffer that ignores the SSRC drops as late.
                source = (source.ssrc &+ 0x0101_0101, source.sequence &- 500, source.timestamp &+ 900_000_000)
            }
            if packet.marker { pictures += 1 }
            packets.append(
                RTPPacketBuilder(
                    marker: packet.marker, payloadType: 96,
                    sequenceNumber: source.sequence &+ UInt16(packets.count % 65536),
                    timestamp: source.timestamp &+ packet.timestamp, ssrc: source.ssrc, payload: Array(packet.payload)
                ).bytes())
        }
        #expect(changes >= 2)
        let (lastSSRC, stream) = (source.ssrc, packets)
        let sdp = try CameraTranscript("foscam_describe.txt")
        let server = try await ScriptedServer { request, connection in
            let port = connection.channel.localAddress?.port ?? 0
            switch request.method {
            case "DESCRIBE": connection.send(sdp.answer(cseq: request.cseq ?? 0, port: port))
            case "PLAY":
                connection.answerNormally(request)
                connection.sendInterleaved(stream)
                var bye = RTCPCompoundBuilder()
                bye.appendGoodbye(ssrcs: [lastSSRC])
                connection.sendInterleaved([bye.bytes], channel: 1)
            default: connection.answerNormally(request)
            }
        }
        defer { Task { await server.stop() } }
        var options = ScriptedServerTests.quick
        options.inactivityTimeout = .seconds(5)
        let log = CapturedLog()
        options.logger = log.logger()
        let session = try await RTSPSession.connect(to: "rtsp://127.0.0.1:\(server.port)/videoMain/", options: options)
        var md5s: [String] = []
        var flags: [(damaged: Bool, discontinuity: Bool, keyframe: Bool)] = []
        for try await frame in try session.accessUnits().frames(decoder: try FFmpegVideoDecoder(codec: .h264)) {
            flags.append((frame.mayBeDamaged, frame.isDiscontinuity, frame.isKeyframe))
            md5s.append(FrameDigest.md5(frame))
        }
        #expect(flags.indices.filter { flags[$0].discontinuity } == Array(stride(from: 30, to: flags.count, by: 30)))
        // Flagged from each change that is not at a keyframe up to the next keyframe.
        var flagging = false
        let expectedDamage = flags.indices.filter { index in
            if flags[index].keyframe { flagging = false } else if flags[index].discontinuity { flagging = true }
            return flagging
        }
        #expect(!expectedDamage.isEmpty)
        #expect(flags.indices.filter { flags[$0].damaged } == expectedDamage)
        #expect(md5s == FixtureStream.expectedMD5s)
        // Each change of source is followed; the log tells the first, once, and nothing was lost.
        #expect(log.lines(containing: "changed its SSRC").count == 1, "\(log.lines)")
        #expect(log.lines(containing: "lost").isEmpty)
        #expect(log.lines(containing: "playing 2 track(s) over tcp").count == 1)  // the video and the PCMU audio
    }
}
