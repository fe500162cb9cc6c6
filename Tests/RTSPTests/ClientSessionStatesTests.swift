import Testing

@_spi(SansIO) @testable import RTSP

/// What the client's machine knows of the session at each step, read as the driver reads it: the offer after
/// DESCRIBE, the server's session after the first SETUP, the played range after PLAY, and all of it still
/// after the session failed (a reconnecting driver tears the old session down on its next connection).
@Suite struct ClientSessionStatesTests {
    typealias Script = RTSPClientStateMachineTests

    @Test func eachStepCarriesWhatTheSessionHasLearnt() throws {
        var m = try Script.machine()
        _ = m.start(now: .zero)
        #expect(m.sessionDescription == nil && m.tracks.isEmpty && m.session == nil)
        _ = Script.throughDescribe(&m)
        // DESCRIBE answered, the video's SETUP under way: the offer, no session yet.
        #expect(m.sessionDescription?.media.count == 2)
        #expect(m.tracks.map(\.control.description) == ["rtsp://cam/live/stream=0"])
        #expect(m.session == nil && m.playedRange == nil)
        _ = m.receive(Script.answer(200, 3, [("Session", "F00D;timeout=20")]), now: .seconds(1))
        #expect(m.session?.id == "F00D")
        #expect(m.playedRange == nil)  // PLAY is sent, not answered
        _ = m.receive(Script.answer(200, 4, [("Range", "npt=12.5-"), ("Scale", "2")]), now: .seconds(1))
        #expect(m.playedRange == "npt=12.5-" && m.playedScale == 2)
    }

    @Test func whatTheSessionLearntIsReadableAfterItFails() throws {
        var m = try Script.machine()
        _ = Script.throughDescribe(&m)
        _ = m.receive(Script.answer(200, 3, [("Session", "F00D;timeout=20")]), now: .seconds(1))
        _ = m.receive(Script.answer(200, 4, [("Range", "npt=0-")]), now: .seconds(1))
        // Playing; a keepalive goes at 11 s and the server stops answering a PAUSE.
        _ = m.pause(now: .seconds(2))
        let failed = m.tick(now: .seconds(12))
        guard case .failed(let error)? = failed.first else {
            Issue.record("not failed: \(failed)")
            return
        }
        #expect(error.code == .timeout)
        #expect(m.session?.id == "F00D")
        #expect(m.tracks.count == 1 && m.sessionDescription != nil && m.playedRange == "npt=0-")
        // TEARDOWN of what is over sends nothing more, and reads the same after.
        #expect(Script.sent(m.teardown(now: .seconds(13))).isEmpty)
        #expect(m.session?.id == "F00D")
    }

    @Test func aDescriptionWithoutAPlayableTrackStaysReadableForTheError() throws {
        var m = try Script.machine()
        _ = m.start(now: .zero)
        _ = m.receive(Script.answer(200, 1), now: .zero)
        let sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=cam\r\nt=0 0\r\nm=audio 0 RTP/AVP 0\r\na=control:a\r\n"
        let actions = m.receive(Script.answer(200, 2, body: sdp), now: .zero)
        guard case .failed(let error)? = actions.first else {
            Issue.record("not failed: \(actions)")
            return
        }
        #expect(error.code == .noPlayableTrack)
        #expect(m.sessionDescription?.media.count == 1 && m.tracks.isEmpty)
    }
}
