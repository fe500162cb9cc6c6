import Testing

@_spi(SansIO) @testable import RTSP
import SDP

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
        #expect(offered.map(\.format.encodingName) == ["H264", "PCMU", "H265"])
        #expect(offered.map(\.format.kind) == [.video, .audio, .video])
        #expect(
            offered.map(\.control.description) == [
                "rtsp://cam/live/main", "rtsp://cam/live/audio", "rtsp://cam/live/sub",
            ])
        #expect(Fixture.sent(m.tick(now: .seconds(30))).isEmpty)  // nothing set up: no keepalive, no SETUP
        #expect(Fixture.sent(m.play(now: .seconds(1))).isEmpty)  // play before setup does nothing

        let setup = Fixture.sent(m.setup(tracks: [2], now: .seconds(1)))
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
        #expect(tracks.map(\.format.videoFormat?.codec) == [.h265])
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

    @Test func withoutASelectionEveryOfferedTrackIsSetUp() throws {
        var m = try Self.machine(stepwise: true)
        _ = Self.describe(&m)
        let first = Fixture.sent(m.setup(tracks: nil, now: .zero))
        #expect(first.map(\.0.url.description) == ["rtsp://cam/live/main"])
        let second = Fixture.sent(m.receive(Fixture.answer(200, 3, [("Session", "S1")]), now: .zero))
        #expect(second.map(\.0.url.description) == ["rtsp://cam/live/audio"])
        #expect(second.first?.0.headers["Transport"] == "RTP/AVP/TCP;unicast;interleaved=2-3")
        #expect(second.first?.0.headers["Session"] == "S1")
        let third = Fixture.sent(m.receive(Fixture.answer(200, 4, [("Session", "S1")]), now: .zero))
        #expect(third.map(\.0.url.description) == ["rtsp://cam/live/sub"])
        #expect(third.first?.0.headers["Transport"] == "RTP/AVP/TCP;unicast;interleaved=4-5")
    }

    /// `mediaKinds` leaves the other kinds out of what is offered: video only, audio only.
    @Test func mediaKindsChooseWhatIsOffered() throws {
        for (kinds, expected) in [([MediaKind.video], ["main", "sub"]), ([.audio], ["audio"])] {
            var m = RTSPClientStateMachine(
                configuration: .init(url: try RTSPURL("rtsp://cam/live"), stepwise: true, mediaKinds: Set(kinds)))
            guard case .described(let offered)? = Self.describe(&m).first else {
                Issue.record("expected .described for \(kinds)")
                continue
            }
            #expect(offered.map { $0.control.description } == expected.map { "rtsp://cam/live/\($0)" })
        }
    }

    /// An audio-only description asked for video fails, naming what it lacks; asked for audio, it plays.
    @Test func aDescriptionWithoutTheKindsAskedForFails() throws {
        let audioOnly = """
            v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=cam\r\nt=0 0\r\n\
            m=audio 0 RTP/AVP 8\r\na=control:audio\r\n
            """
        var video = RTSPClientStateMachine(
            configuration: .init(url: try RTSPURL("rtsp://cam/live"), mediaKinds: [.video]))
        _ = video.start(now: .zero)
        _ = video.receive(Fixture.answer(200, 1), now: .zero)
        let failed = video.receive(Fixture.answer(200, 2, body: audioOnly), now: .zero)
        guard case .failed(let error)? = failed.first else {
            Issue.record("expected a failure, got \(failed)")
            return
        }
        #expect(error.code == .noPlayableTrack)
        #expect(error.reason.contains("no video track"))
        var any = RTSPClientStateMachine(configuration: .init(url: try RTSPURL("rtsp://cam/live")))
        _ = any.start(now: .zero)
        _ = any.receive(Fixture.answer(200, 1), now: .zero)
        let setup = Fixture.sent(any.receive(Fixture.answer(200, 2, body: audioOnly), now: .zero))
        #expect(setup.map(\.0.url.description) == ["rtsp://cam/live/audio"])
        #expect(any.tracks.first?.format.audioFormat?.codec == .pcma)  // static payload type 8
    }

    /// A camera with its audio switched off refuses the audio track's SETUP: the session plays the others,
    /// and says which was refused. A refused video track still ends the session.
    @Test func aRefusedAudioTrackIsLeftOutAndTheSessionPlays() throws {
        var m = try Self.machine(stepwise: false)
        let first = Fixture.sent(Self.describe(&m))
        #expect(first.map(\.0.url.description) == ["rtsp://cam/live/main"])
        let audio = Fixture.sent(m.receive(Fixture.answer(200, 3, [("Session", "S1")]), now: .zero))
        #expect(audio.map(\.0.url.description) == ["rtsp://cam/live/audio"])
        let sub = Fixture.sent(m.receive(Fixture.answer(453, 4), now: .zero))
        #expect(sub.map(\.0.url.description) == ["rtsp://cam/live/sub"])
        // The next track takes the channels the refused one asked for.
        #expect(sub.first?.0.headers["Transport"] == "RTP/AVP/TCP;unicast;interleaved=2-3")
        let play = Fixture.sent(m.receive(Fixture.answer(200, 5, [("Session", "S1")]), now: .zero))
        #expect(play.map(\.0.method) == ["PLAY"])
        let playing = m.receive(Fixture.answer(200, 6), now: .zero)
        guard case .playing(let tracks)? = playing.first else {
            Issue.record("expected .playing, got \(playing)")
            return
        }
        #expect(tracks.map(\.format.encodingName) == ["H264", "H265"])
        #expect(m.refusedTracks.map(\.track.control.description) == ["rtsp://cam/live/audio"])
        #expect(m.refusedTracks.map(\.status) == [453])

        var video = try Self.machine(stepwise: false)
        _ = Self.describe(&video)
        let failed = video.receive(Fixture.answer(453, 3), now: .zero)
        guard case .failed(let error)? = failed.first else {
            Issue.record("expected a failure, got \(failed)")
            return
        }
        #expect(error.status == 453)
    }

    @Test func aSelectionThatNamesNoOfferedTrackFailsTheSession() throws {
        var m = try Self.machine(stepwise: true)
        _ = Self.describe(&m)
        let actions = m.setup(tracks: [5], now: .zero)
        guard case .failed(let error)? = actions.first else {
            Issue.record("expected a failure, got \(actions)")
            return
        }
        #expect(error.code == .noPlayableTrack)
        #expect(error.reason.contains("[5]"))
    }

    @Test func straightThroughWithASelectionSetsUpOnlyThoseTracks() throws {
        var m = try Self.machine(stepwise: false, selection: [2])
        let setup = Fixture.sent(Self.describe(&m))
        #expect(setup.map(\.0.url.description) == ["rtsp://cam/live/sub"])
        let play = Fixture.sent(m.receive(Fixture.answer(200, 3, [("Session", "S1")]), now: .zero))
        #expect(play.map(\.0.method) == ["PLAY"])
    }
}
