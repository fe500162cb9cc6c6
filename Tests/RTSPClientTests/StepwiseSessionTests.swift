import MediaDecoding
import FFmpegDecoding
import NIOConcurrencyHelpers
@_spi(SansIO) import RTSP
import RTSPClient
import Testing

/// describe → setup → play as separate calls (`RTSPDescribedSession`): against the real server, and a
/// scripted one that offers two video tracks so that the choice shows.
@Suite struct StepwiseSessionTests {
    /// An H.264 and an H.265 track.
    static let twoTracks = """
        v=0\r
        o=- 1 1 IN IP4 127.0.0.1\r
        s=two\r
        t=0 0\r
        m=video 0 RTP/AVP 96\r
        a=rtpmap:96 H264/90000\r
        a=control:main\r
        m=video 0 RTP/AVP 97\r
        a=rtpmap:97 H265/90000\r
        a=control:sub\r

        """

    @Test func describeSetupAndPlayOnTheRealServer() async throws {
        let server = try await RealServer(["--frames", "60"])
        defer { server.stop() }
        let described = try await RTSPSession.describe(server.url)
        #expect(described.offeredTracks.map(\.format.videoFormat?.codec) == [.h264])
        #expect(described.offeredTracks.allSatisfy { $0.transport == nil })
        #expect(described.sessionDescription?.media.count == 1)
        let tracks = try await described.setup()
        #expect(tracks.first?.transport?.interleavedChannels?.rtp == 0)
        let session = try await described.play()
        // The tracks set up, with their transports; playing, they also know PLAY's RTP-Info.
        #expect(session.tracks.map(\.control) == tracks.map(\.control))
        #expect(session.tracks.map(\.transport) == tracks.map(\.transport))
        #expect(tracks.allSatisfy { $0.rtpInfo == nil })
        #expect(session.tracks.first?.rtpInfo?.sequenceNumber != nil)
        #expect(session.tracks.first?.rtpInfo?.rtpTime != nil)
        var frames = 0
        for try await frame in try session.accessUnits().frames(decoder: FFmpegVideoDecoder(codec: .h264)) {
            #expect(!frame.mayBeDamaged)
            frames += 1
        }
        #expect((58...60).contains(frames), "\(frames) frames")
    }

    @Test func onlyTheChosenTrackIsSetUpAndMisuseIsAnErrorThatLeavesTheSessionAlone() async throws {
        let setups = NIOLockedValueBox<[String]>([])
        let server = try await ScriptedServer { request, connection in
            if case .request("SETUP", let uri) = request.kind { setups.withLockedValue { $0.append(uri) } }
            connection.answerNormally(request, sdp: Self.twoTracks)
            // A stream that goes on: the session stays alive for the misuse below however slow the machine.
            if request.method == "PLAY" { connection.streamRTP(every: .milliseconds(50)) }
        }
        defer { Task { await server.stop() } }
        let described = try await RTSPSession.describe(server.url, options: ScriptedServerTests.quick)
        #expect(described.offeredTracks.map(\.format.videoFormat?.codec) == [.h264, .h265])
        #expect(server.methods == ["OPTIONS", "DESCRIBE"])

        let early = await #expect(throws: RTSPClientError.self) { try await described.play() }
        #expect(early?.code == .invalidCall)
        let wrong = await #expect(throws: RTSPClientError.self) { try await described.setup(tracks: [2]) }
        #expect(wrong?.code == .invalidCall)
        #expect(wrong?.description.contains("2 were offered") == true)

        let tracks = try await described.setup(tracks: [1])
        #expect(tracks.map(\.format.videoFormat?.codec) == [.h265])
        #expect(setups.withLockedValue { $0 } == ["rtsp://127.0.0.1:\(server.port)/stream/sub"])
        let session = try await described.play()
        #expect(session.tracks.map(\.format.videoFormat?.codec) == [.h265])
        let again = await #expect(throws: RTSPClientError.self) { try await described.play() }
        #expect(again?.code == .invalidCall)
        let (packets, _) = await ScriptedServerTests.drain(session, limit: 3)
        #expect(packets.map(\.track) == [0, 0, 0])
        await session.teardown()
        #expect(server.methods == ["OPTIONS", "DESCRIBE", "SETUP", "PLAY", "TEARDOWN"])
    }

    @Test func aDescribedSessionThatIsSetUpAndDroppedIsTornDown() async throws {
        let server = try await ScriptedServer { request, connection in connection.answerNormally(request) }
        defer { Task { await server.stop() } }
        do {
            let described = try await RTSPSession.describe(server.url, options: ScriptedServerTests.quick)
            try await described.setup()
        }
        for _ in 0..<250 where server.methods.last != "TEARDOWN" { try await Task.sleep(for: .milliseconds(20)) }
        #expect(server.methods == ["OPTIONS", "DESCRIBE", "SETUP", "TEARDOWN"])
    }
}
