import RTP
import Testing

@_spi(SansIO) @testable import RTSP

/// Playing a recording: PLAY's Range, Scale, Speed, Rate-Control and ONVIF's Require, a seek while playing,
/// the headers hook, and the ranges rtpdump's --range reads.
@Suite struct PlaybackRequestTests {
    typealias Machine = RTSPClientStateMachineTests

    /// A machine with `playback` (and `headers`) driven to PLAY; returns the machine and every request sent.
    static func played(
        _ playback: PlaybackRequest?,
        headers: (@Sendable (RTSPMethod) -> [(name: String, value: String)])? = nil
    ) throws -> (RTSPClientStateMachine, [RTSPRequest]) {
        var m = RTSPClientStateMachine(
            configuration: .init(
                url: try RTSPURL("rtsp://nvr/recording"), mediaKinds: [.video], playback: playback,
                additionalHeaders: headers))
        var requests = Machine.sent(m.start(now: .zero)).map(\.0)
        requests += Machine.sent(
            m.receive(Machine.answer(200, 1, [("Public", "OPTIONS, DESCRIBE, SETUP, PLAY")]), now: .zero)
        ).map(\.0)
        requests += Machine.sent(
            m.receive(
                Machine.answer(200, 2, [("Content-Base", "rtsp://nvr/recording/")], body: Machine.sdp), now: .zero)
        ).map(\.0)
        requests += Machine.sent(m.receive(Machine.answer(200, 3, [("Session", "S1")]), now: .zero)).map(\.0)
        _ = m.receive(
            Machine.answer(
                200, 4,
                [("Range", "npt=4.967-"), ("RTP-Info", "url=rtsp://nvr/recording/stream=0;seq=100;rtptime=9000")]),
            now: .zero)
        return (m, requests)
    }

    @Test func playCarriesTheRangeScaleSpeedAndRateControl() throws {
        let playback = PlaybackRequest(range: .npt(start: 5, end: 12.5), scale: 2, speed: 4, rateControl: false)
        let (m, requests) = try Self.played(playback)
        let play = try #require(requests.last)
        #expect(play.method == "PLAY")
        #expect(play.headers["Range"] == "npt=5.000-12.500")
        #expect(play.headers["Scale"] == "2.0")
        #expect(play.headers["Speed"] == "4.0")
        #expect(play.headers["Rate-Control"] == "no")
        #expect(play.headers["Require"] == nil)
        #expect(m.playedRange == "npt=4.967-")
        #expect(m.tracks.first?.rtpInfo?.sequenceNumber == 100)
    }

    /// Live (no playback): PLAY from now, as before; no Scale, Speed, Rate-Control or Require.
    @Test func livePlaysFromTheStartWithNothingElse() throws {
        let (_, requests) = try Self.played(nil)
        let play = try #require(requests.last)
        #expect(play.headers["Range"] == "npt=0.000-")
        #expect(["Scale", "Speed", "Rate-Control", "Require"].allSatisfy { play.headers[$0] == nil })
    }

    /// ONVIF replay: `Require: onvif-replay` on DESCRIBE, SETUP and PLAY (not OPTIONS), and a clock range.
    @Test func anONVIFReplayRequiresItOnDescribeSetupAndPlay() throws {
        let start = try #require(UTCTime.parse("20260101T000003.250Z"))
        let (_, requests) = try Self.played(PlaybackRequest(range: .clock(start: start, end: nil), onvifReplay: true))
        #expect(requests.map(\.method) == ["OPTIONS", "DESCRIBE", "SETUP", "PLAY"])
        #expect(requests.map { $0.headers["Require"] } == [nil, "onvif-replay", "onvif-replay", "onvif-replay"])
        #expect(requests.last?.headers["Range"] == "clock=20260101T000003.250Z-")
    }

    /// The hook's headers go on every request, and never replace the client's own.
    @Test func theHeadersHookAddsToEveryRequest() throws {
        let (_, requests) = try Self.played(
            nil, headers: { method in [("X-Token", "t-\(method.name)"), ("Session", "forged"), ("CSeq", "99")] })
        #expect(requests.map { $0.headers["X-Token"] } == ["t-OPTIONS", "t-DESCRIBE", "t-SETUP", "t-PLAY"])
        #expect(requests.last?.headers["Session"] == "S1")
        #expect(requests.last?.serialized(cseq: 4).count ?? 0 > 0)
        let text = String(decoding: try #require(requests.last).serialized(cseq: 4), as: UTF8.self)
        #expect(text.contains("CSeq: 4\r\n") && !text.contains("CSeq: 99"))
    }

    /// A seek while playing: PLAY with the new range; its answer gives the new RTP-Info (the old one is
    /// forgotten) and `.seeked`. Not while another request is under way, nor before playing.
    @Test func aSeekWhilePlayingSendsPlayWithTheNewRange() throws {
        var (m, _) = try Self.played(PlaybackRequest(range: .npt(start: 0, end: nil)))
        let seek = Machine.sent(m.seek(PlaybackRequest(range: .npt(start: 30, end: nil), scale: -1), now: .seconds(1)))
        #expect(seek.first?.0.method == "PLAY")
        #expect(seek.first?.0.headers["Range"] == "npt=30.000-")
        #expect(seek.first?.0.headers["Scale"] == "-1.0")
        #expect(m.seek(PlaybackRequest(), now: .seconds(1)).isEmpty)  // one at a time
        let answered = m.receive(
            Machine.answer(200, 5, [("Range", "npt=29.967-"), ("RTP-Info", "url=stream=0;seq=5000;rtptime=123")]),
            now: .seconds(1))
        guard case .seeked(let tracks)? = answered.first else {
            Issue.record("not seeked: \(answered)")
            return
        }
        #expect(tracks.first?.rtpInfo?.sequenceNumber == 5000)
        #expect(m.playedRange == "npt=29.967-")
        var idle = try Machine.machine()
        #expect(idle.seek(PlaybackRequest(), now: .zero).isEmpty)
    }

    @Test(arguments: [
        ("npt=5-", "npt=5.000-"), ("npt=1.5-10", "npt=1.500-10.000"), ("NPT=0-", "npt=0.000-"),
        ("clock=20261126T120000Z-", "clock=20261126T120000Z-"),
        ("clock=19991231T235959.5Z-20000101T000001Z", "clock=19991231T235959.500Z-20000101T000001Z"),
        ("clock=20240229T000000Z-", "clock=20240229T000000Z-"),
    ])
    func rangesReadAndWriteBack(text: String, written: String) throws {
        #expect(try PlaybackRequest.Range(parsing: text).description == written)
    }

    /// A clock time is the UTC instant it names (checked against the Unix time of known dates).
    @Test func clockTimesAreUTC() throws {
        let time = try #require(UTCTime.parse("20261126T120000Z"))
        #expect(time.secondsSince1970 == 1_795_694_400)
        #expect(UTCTime.parse("19700101T000000Z")?.secondsSince1970 == 0)
        #expect(UTCTime.parse("20000301T000000Z")?.secondsSince1970 == 951_868_800)
    }

    @Test(arguments: [
        "5-", "npt=-5", "npt=abc-", "npt=10-5", "npt=inf-", "clock=2026-11-26-", "clock=20261126T120000-",
        "clock=20261326T120000Z-", "clock=20261126T120000.Z-", "clock=20261126T120000.12345678901234567890Z-",
        "clock=20261126T120000Z-20251126T120000Z", "range=5-",
    ])
    func badRangesSayWhatDoesNotRead(text: String) {
        #expect(throws: RTSPClientError.self) { try PlaybackRequest.Range(parsing: text) }
    }
}

extension PlaybackRequestTests {
    /// A server without ONVIF replay answers `551 Option not supported`: the error says what it refused and
    /// what to do instead, and the session ends.
    @Test func aServerWithoutReplaySaysWhatItRefused() throws {
        var m = RTSPClientStateMachine(
            configuration: .init(
                url: try RTSPURL("rtsp://cam/live"), mediaKinds: [.video], playback: PlaybackRequest(onvifReplay: true))
        )
        _ = m.start(now: .zero)
        _ = m.receive(Machine.answer(200, 1), now: .zero)
        let refused = m.receive(Machine.answer(551, 2), now: .zero)
        guard case .failed(let error)? = refused.first else {
            Issue.record("not failed: \(refused)")
            return
        }
        #expect(error.code == .unsupported)
        #expect(error.reason.contains("onvif-replay") && error.reason.contains("--onvif-replay"), "\(error)")
    }
}
