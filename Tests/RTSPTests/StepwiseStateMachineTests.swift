import Testing

@testable import RTSP

/// The machine stopping for its caller after DESCRIBE and after SETUP (`RTSPDescribedSession`), and the
/// selection of tracks to set up.
@Suite struct StepwiseStateMachineTests {
    typealias Fixture = RTSPClientStateMachineTests

    /// Two video tracks (H.264, then H.265) and an audio track between them.
    static let sdp = """
        v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=cam\r\nt=0 0\r\na=control:*\r\n\
        m=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\na=fmtp:96 packetization-mode=1\r\na=control:main\r\n\
        m=audio 0 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=control:audio\r\n\
        m=video 0 RTP/AVP 97\r\na=rtpmap:97 H265/90000\r\na=control:sub\r\n
        """

    static func machine(stepwise: Bool, selection: [Int]? = nil) throws -> RTSPClientStateMachine {
        RTSPClientStateMachine(
            configuration: .init(url: try RTSPURL("rtsp://cam/live"), stepwise: stepwise, trackSelection: selection))
    }

    /// OPTIONS, then the DESCRIBE answer: the actions it gives.
    static func describe(_ m: inout RTSPClientStateMachine) -> [RTSPClientStateMachine.Action] {
        _ = m.start(now: .zero)
        _ = m.receive(Fixture.answer(200, 1, [("Public", "OPTIONS, DESCRIBE, SETUP, PLAY, GET_PARAMETER")]), now: .zero)
        return m.receive(Fixture.answer(200, 2, [("Content-Base", "rtsp://cam/live/")], body: sdp), now: .zero)
    }

    @Test func stopsAfterDescribeAndAfterSetupUntilTheCallerGoesOn() throws {
        var m = try Self.machine(stepwise: true)
        let described = Self.describe(&m)
        guard case .described(let offered)? = described.first, described.count == 1 else {
            Issue.record("expected only .described, got \(described)")
            return
        }
        #expect(offered.map(\.format.codec) == [.h264, .h265])
        #expect(offered.map(\.control.description) == ["rtsp://cam/live/main", "rtsp://cam/live/sub"])
        #expect(Fixture.sent(m.tick(now: .seconds(30))).isEmpty)  // nothing set up: no keepalive, no SETUP
        #expect(Fixture.sent(m.play(now: .seconds(1))).isEmpty)  // play before setup does nothing

        let setup = Fixture.sent(m.setup(tracks: [1], now: .seconds(1)))
        #expect(setup.map(\.0.url.description) == ["rtsp://cam/live/sub"])
        #expect(setup.first?.0.headers["Transport"] == "RTP/AVP/TCP;unicast;interleaved=0-1")
        #expect(m.setup(tracks: [0], now: .seconds(1)).isEmpty)  // once only

        let ready = m.receive(
            Fixture.answer(200, 3, [("Session", "S1;timeout=10"), ("Transport", "RTP/AVP/TCP;interleaved=0-1")]),
            now: .seconds(2))
        guard case .setUp(let tracks)? = ready.first else {
            Issue.record("expected .setUp, got \(ready)")
            return
        }
        #expect(tracks.map(\.format.codec) == [.h265])
        #expect(tracks.first?.transport?.interleavedChannels?.rtp == 0)
        #expect(Fixture.sent(ready).isEmpty)  // no PLAY of its own
        // Waiting for play() the session is kept alive.
        #expect(Fixture.sent(m.tick(now: .seconds(7))).map(\.0.method) == ["GET_PARAMETER"])
        _ = m.receive(Fixture.answer(200, 4), now: .seconds(7))

        let play = Fixture.sent(m.play(now: .seconds(8)))
        #expect(play.map(\.0.method) == ["PLAY"])
        #expect(play.first?.0.headers["Session"] == "S1")
        let playing = m.receive(Fixture.answer(200, 5), now: .seconds(8))
        guard case .playing(let played)? = playing.first else {
            Issue.record("expected .playing, got \(playing)")
            return
        }
        #expect(played == tracks)
    }

    @Test func withoutASelectionEveryOfferedVideoTrackIsSetUp() throws {
        var m = try Self.machine(stepwise: true)
        _ = Self.describe(&m)
        let first = Fixture.sent(m.setup(tracks: nil, now: .zero))
        #expect(first.map(\.0.url.description) == ["rtsp://cam/live/main"])
        let second = Fixture.sent(m.receive(Fixture.answer(200, 3, [("Session", "S1")]), now: .zero))
        #expect(second.map(\.0.url.description) == ["rtsp://cam/live/sub"])
        #expect(second.first?.0.headers["Transport"] == "RTP/AVP/TCP;unicast;interleaved=2-3")
        #expect(second.first?.0.headers["Session"] == "S1")
    }

    @Test func aSelectionThatNamesNoOfferedTrackFailsTheSession() throws {
        var m = try Self.machine(stepwise: true)
        _ = Self.describe(&m)
        let actions = m.setup(tracks: [5], now: .zero)
        guard case .failed(let error)? = actions.first else {
            Issue.record("expected a failure, got \(actions)")
            return
        }
        #expect(error.code == .noVideoTrack)
        #expect(error.reason.contains("[5]"))
    }

    @Test func straightThroughWithASelectionSetsUpOnlyThoseTracks() throws {
        var m = try Self.machine(stepwise: false, selection: [1])
        let setup = Fixture.sent(Self.describe(&m))
        #expect(setup.map(\.0.url.description) == ["rtsp://cam/live/sub"])
        let play = Fixture.sent(m.receive(Fixture.answer(200, 3, [("Session", "S1")]), now: .zero))
        #expect(play.map(\.0.method) == ["PLAY"])
    }
}
