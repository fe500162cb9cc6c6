import RTP
@_spi(SansIO) import RTSP
import SDP
import Testing

/// What the server's machine makes of ONVIF's replay requests: `Require: onvif-replay` is served for a recording
/// (a presentation with a duration) and refused with 551 for live media; a PLAY carries whether it asked for the
/// replay extension, `Rate-Control: no`, and its CSeq byte; Scale is -64 to 64 and not 0, negative for a recording
/// alone.
@Suite struct ServerReplayRequestTests {
    static let formats: [MediaFormat] = [
        .video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1, profileLevelID: "42c01e"))
    ]
    let t0 = ArrivalTime(nanoseconds: 0)

    /// 00:00:06 on 1 January 2026 (UTC): when /rec's recording ends.
    static let recordedUntil = WallClockTime(ntp: 3_976_214_406 << 32)

    static func machine() -> RTSPServerStateMachine {
        RTSPServerStateMachine(presentations: [
            .init(path: "/live", formats: formats),
            .init(path: "/rec", formats: formats, duration: 6, recordedUntil: recordedUntil),
            .init(path: "/undated", formats: formats, duration: 6),
        ])
    }

    static func request(_ method: String, _ uri: String, cseq: Int, _ headers: [(String, String)] = []) -> RTSPMessage {
        RTSPMessage(kind: .request(method: method, uri: uri), headers: [("CSeq", "\(cseq)")] + headers, body: [])
    }

    static func answer(_ actions: [RTSPServerStateMachine.Action]) -> RTSPMessage? {
        for case .respond(let message) in actions { return message }
        return nil
    }

    /// A session on `path`, set up over TCP: its id.
    func setUp(_ machine: inout RTSPServerStateMachine, _ path: String, _ headers: [(String, String)] = []) throws
        -> String
    {
        let answer = try #require(
            Self.answer(
                machine.receive(
                    Self.request(
                        "SETUP", "rtsp://127.0.0.1/\(path)/trackID=0", cseq: 1,
                        [("Transport", "RTP/AVP/TCP;unicast;interleaved=0-1")] + headers), now: t0)))
        return try #require(answer.header("Session").flatMap(SessionHeader.init)?.id)
    }

    @Test func onvifReplayIsRequiredOfARecordingAndRefusedForLiveMedia() throws {
        var machine = Self.machine()
        let required = [("Require", "onvif-replay")]
        let live = Self.answer(
            machine.receive(Self.request("DESCRIBE", "rtsp://127.0.0.1/live", cseq: 1, required), now: t0))
        #expect(live.map { "\($0.kind)" }?.contains("551") == true)
        #expect(live?.header("Unsupported") == "onvif-replay")
        let recording = try #require(
            Self.answer(machine.receive(Self.request("DESCRIBE", "rtsp://127.0.0.1/rec", cseq: 2, required), now: t0)))
        guard case .response(200, _) = recording.kind else {
            Issue.record("DESCRIBE of the recording: \(recording.kind)")
            return
        }
        let session = try setUp(&machine, "rec", required)
        let actions = machine.receive(
            Self.request(
                "PLAY", "rtsp://127.0.0.1/rec", cseq: 258,
                [("Session", session), ("Require", "onvif-replay"), ("Rate-Control", "no"), ("Scale", "-2")]),
            now: t0)
        guard case .play(let play)? = actions.first else {
            Issue.record("PLAY: \(actions)")
            return
        }
        #expect(play.onvifReplay)
        #expect(!play.rateControl)
        #expect(play.cseqByte == 2, "258's low byte")
        #expect(play.scale == -2)
        // The same recording played without the option: no extension, paced.
        let plain = machine.receive(
            Self.request("PLAY", "rtsp://127.0.0.1/rec", cseq: 259, [("Session", session)]), now: t0)
        guard case .play(let again)? = plain.first else {
            Issue.record("PLAY: \(plain)")
            return
        }
        #expect(!again.onvifReplay)
        #expect(again.rateControl)
    }

    /// The status a PLAY of `path` with `header` gets from a fresh session: 200 when the machine plays it, else its
    /// answer's, which must say why.
    func playStatus(_ path: String, _ header: (String, String)) throws -> Int? {
        var machine = Self.machine()
        let session = try setUp(&machine, path)
        let actions = machine.receive(
            Self.request("PLAY", "rtsp://127.0.0.1/\(path)", cseq: 2, [("Session", session), header]), now: t0)
        if case .play = actions.first { return 200 }
        guard case .response(let status, _)? = Self.answer(actions)?.kind else { return nil }
        #expect(Self.answer(actions)?.header("Reason") != nil, "status \(status) says why")
        return status
    }

    @Test(arguments: [
        ("rec", "-1", 200), ("rec", "-64", 200), ("rec", "-65", 400), ("rec", "0", 400), ("live", "-1", 400),
        ("live", "2", 200),
    ])
    func scaleIsBoundedAndBackwardsOnlyForARecording(path: String, scale: String, status: Int) throws {
        #expect(try playStatus(path, ("Scale", scale)) == status)
    }

    @Test(arguments: [("4", 200), ("64", 200), ("0", 400), ("-1", 400), ("65", 400), ("fast", 400)])
    func speedIsAboveZeroAndAtMost64(speed: String, status: Int) throws {
        #expect(try playStatus("rec", ("Speed", speed)) == status)
    }

    /// A clock range is refused by the machine (before the session is said to play) when it starts at or past the
    /// recording's end, or the recording has no wall clock; one inside it plays.
    @Test(arguments: [
        ("rec", "clock=20260101T000005Z-", 200), ("rec", "clock=20260101T000006Z-", 457),
        ("rec", "clock=20270101T000000Z-", 457), ("undated", "clock=20260101T000005Z-", 457),
        ("rec", "npt=5.9-", 200), ("rec", "npt=6-", 457),
    ])
    func aRangeIsCheckedAgainstTheRecording(path: String, range: String, status: Int) throws {
        #expect(try playStatus(path, ("Range", range)) == status)
    }
}
