import Testing

@_spi(SansIO) @testable import RTSP

/// The client's logic against scripted answers: what a real server will not do on demand (401 loops,
/// stale nonces, silence, redirects, 461) as well as the ordinary exchange.
@Suite struct RTSPClientStateMachineTests {
    static let sdp = """
        v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=cam\r\nt=0 0\r\na=control:*\r\n\
        m=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\na=fmtp:96 packetization-mode=1\r\na=control:stream=0\r\n\
        m=audio 0 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=control:stream=1\r\n
        """

    static func answer(_ status: Int, _ cseq: Int, _ headers: [(String, String)] = [], body: String = "") -> RTSPMessage
    {
        RTSPMessage(
            kind: .response(statusCode: status, reason: status == 200 ? "OK" : "Error"),
            headers: [("CSeq", "\(cseq)")] + headers.map { (name: $0.0, value: $0.1) }, body: Array(body.utf8))
    }

    /// The requests in a list of actions.
    static func sent(_ actions: [RTSPClientStateMachine.Action]) -> [(RTSPRequest, Int)] {
        actions.compactMap { if case .send(let r, let c) = $0 { return (r, c) } else { return nil } }
    }

    /// A machine that sets up the video only (the exchanges scripted here are of one track; the audio
    /// track's set-up has tests of its own).
    static func machine(
        _ url: String = "rtsp://user:pw@cam/live", transport: RTSPClientStateMachine.TransportMode = .tcpInterleaved
    ) throws -> RTSPClientStateMachine {
        RTSPClientStateMachine(configuration: .init(url: try RTSPURL(url), transport: transport, mediaKinds: [.video]))
    }

    /// Drives OPTIONS and DESCRIBE, returning the SETUP request.
    static func throughDescribe(
        _ m: inout RTSPClientStateMachine,
        publicMethods: String = "OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN, GET_PARAMETER"
    ) -> RTSPRequest? {
        _ = m.start(now: .zero)
        let describe = sent(m.receive(answer(200, 1, [("Public", publicMethods)]), now: .zero))
        guard describe.first?.0.method == "DESCRIBE" else { return nil }
        let setup = sent(m.receive(answer(200, 2, [("Content-Base", "rtsp://cam/live/")], body: Self.sdp), now: .zero))
        return setup.first?.0
    }

    @Test func theOrdinaryExchangeThenKeepalives() throws {
        var first = try Self.machine()
        let options = Self.sent(first.start(now: .zero))
        #expect(options.map(\.0.method) == ["OPTIONS"])
        #expect(options.first?.0.url.description == "rtsp://cam/live")  // the URL's credentials are not sent in it
        var m = try Self.machine()
        let setup = try #require(Self.throughDescribe(&m))
        #expect(setup.method == "SETUP")
        #expect(setup.url.description == "rtsp://cam/live/stream=0")  // the audio track is not asked for
        #expect(setup.headers["Transport"] == "RTP/AVP/TCP;unicast;interleaved=0-1")
        let play = Self.sent(
            m.receive(
                Self.answer(
                    200, 3,
                    [
                        ("Session", "F00D;timeout=20"),
                        ("Transport", "RTP/AVP/TCP;unicast;interleaved=0-1;ssrc=1A2B3C4D"),
                    ]), now: .seconds(1)))
        #expect(play.first?.0.method == "PLAY")
        #expect(play.first?.0.headers["Session"] == "F00D")
        let playing = m.receive(Self.answer(200, 4), now: .seconds(1))
        guard case .playing(let tracks)? = playing.first else {
            Issue.record("not playing: \(playing)")
            return
        }
        #expect(tracks.first?.transport?.interleavedChannels?.rtp == 0)
        #expect(tracks.first?.format.videoFormat?.codec == .h264)
        #expect(tracks.first?.announcedSSRCs == [0x1A2B_3C4D])
        #expect(Self.sent(m.tick(now: .seconds(10))).isEmpty)  // keepalive due at 1 + 20/2 = 11 s
        let keepalive = Self.sent(m.tick(now: .seconds(11)))
        #expect(keepalive.map(\.0.method) == ["GET_PARAMETER"])
        #expect(keepalive.first?.0.headers["Session"] == "F00D")
    }

    /// Found by FuzzRTSPClient: torn down before a session existed (DESCRIBE still unanswered), the machine
    /// said closed, then answered the late 401 with a new DESCRIBE. Nothing may follow the end.
    @Test func anAnswerAfterAnEarlyTeardownIsIgnored() throws {
        var m = try Self.machine()
        _ = m.start(now: .zero)
        #expect(Self.sent(m.receive(Self.answer(200, 1), now: .zero)).first?.0.method == "DESCRIBE")
        let closed = m.teardown(now: .zero)
        #expect(closed.count == 1)
        if case .closed = closed.first {} else { Issue.record("teardown before a session: \(closed)") }
        let late = m.receive(
            Self.answer(401, 2, [("WWW-Authenticate", "Digest realm=\"cam\", nonce=\"abc\"")]), now: .seconds(1))
        #expect(late.isEmpty)
        #expect(m.tick(now: .seconds(60)).isEmpty)
    }

    /// Content-Base as cameras write it (issue 19): without its scheme, a path alone, empty, or absent.
    @Test(arguments: [
        ("192.168.1.10:8554/media/", "rtsp://192.168.1.10:8554/media/stream=0"),
        ("/media/", "rtsp://cam/media/stream=0"), ("", "rtsp://cam/live/stream=0"),
        ("rtsp://cam/live/", "rtsp://cam/live/stream=0"),
    ])
    func contentBaseInCamerasSpellings(contentBase: String, setupURL: String) throws {
        var m = try Self.machine()
        _ = m.start(now: .zero)
        _ = m.receive(Self.answer(200, 1), now: .zero)
        let headers = contentBase.isEmpty ? [] : [("Content-Base", contentBase)]
        let setup = Self.sent(m.receive(Self.answer(200, 2, headers, body: Self.sdp), now: .zero))
        #expect(setup.first?.0.url.description == setupURL)
    }

    /// H264DVR answers a UDP SETUP with `ssrc=0`, a placeholder: no source is announced.
    @Test func aZeroSSRCAnnouncesNothing() throws {
        var m = try Self.machine()
        _ = Self.throughDescribe(&m)
        _ = m.receive(
            Self.answer(200, 3, [("Session", "S"), ("Transport", "RTP/AVP/TCP;interleaved=0-1;ssrc=0")]), now: .zero)
        guard case .playing(let tracks)? = m.receive(Self.answer(200, 4), now: .zero).first else {
            Issue.record("not playing")
            return
        }
        #expect(tracks.first?.announcedSSRCs.isEmpty == true)
    }

    @Test func keepaliveIsOptionsWhenGetParameterIsNotOffered() throws {
        var m = try Self.machine()
        _ = Self.throughDescribe(&m, publicMethods: "OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN")
        _ = m.receive(Self.answer(200, 3, [("Session", "S1")]), now: .zero)  // no timeout given: 60 s
        _ = m.receive(Self.answer(200, 4), now: .zero)
        #expect(Self.sent(m.tick(now: .seconds(29))).isEmpty)
        #expect(Self.sent(m.tick(now: .seconds(30))).map(\.0.method) == ["OPTIONS"])
    }

    @Test func digestAfter401ThenAWrongPasswordFailsWithoutTheHangingOrThePassword() throws {
        var m = try Self.machine("rtsp://admin:hunter2@cam/live")
        _ = m.start(now: .zero)
        let challenge = ("WWW-Authenticate", "Digest realm=\"cam\", nonce=\"n1\", qop=\"auth\"")
        let retry = Self.sent(m.receive(Self.answer(401, 1, [challenge]), now: .zero))
        #expect(retry.first?.0.method == "OPTIONS")
        #expect(retry.first?.0.headers["Authorization"]?.hasPrefix("Digest username=\"admin\"") == true)
        let final = m.receive(Self.answer(401, 2, [challenge]), now: .zero)
        guard case .failed(let error)? = final.first else {
            Issue.record("expected a failure, got \(final)")
            return
        }
        #expect(error.code == .unauthorized)
        #expect(error.description.contains("401 Unauthorized"))
        #expect(!error.description.contains("hunter2"))
    }

    @Test func aStaleNonceIsRetriedOnceMore() throws {
        var m = try Self.machine()
        _ = m.start(now: .zero)
        _ = m.receive(Self.answer(401, 1, [("WWW-Authenticate", "Digest realm=\"c\", nonce=\"n1\"")]), now: .zero)
        let again = Self.sent(
            m.receive(
                Self.answer(401, 2, [("WWW-Authenticate", "Digest realm=\"c\", nonce=\"n2\", stale=true")]), now: .zero)
        )
        #expect(again.first?.0.headers["Authorization"]?.contains("nonce=\"n2\"") == true)
        let third = m.receive(
            Self.answer(401, 3, [("WWW-Authenticate", "Digest realm=\"c\", nonce=\"n3\", stale=true")]), now: .zero)
        guard case .failed(let error)? = third.first else {
            Issue.record("a 401 loop must end")
            return
        }
        #expect(error.code == .unauthorized)
    }

    @Test func noCredentialsMeansTheFirst401Fails() throws {
        var m = try Self.machine("rtsp://cam/live")
        _ = m.start(now: .zero)
        guard
            case .failed(let error)? = m.receive(
                Self.answer(401, 1, [("WWW-Authenticate", "Basic realm=\"c\"")]), now: .zero
            ).first
        else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.description.contains("wants a user name and password"))
    }

    /// A keepalive's answer is not a condition of life (GW4089IP never answers GET_PARAMETER): unanswered by the
    /// next keepalive's time (half the session timeout, here before the 10 s request timeout), the next keepalive
    /// is another method; refused (a 4xx, 5xx or 3xx), the same. The session ends only by its media (the driver's
    /// inactivity timeout) or by the caller.
    @Test func keepalivesThatAreRefusedOrUnansweredSwitchMethodAndNeverEndTheSession() throws {
        var m = try Self.machine()
        _ = Self.throughDescribe(&m)
        _ = m.receive(Self.answer(200, 3, [("Session", "S;timeout=10")]), now: .zero)
        _ = m.receive(Self.answer(200, 4), now: .zero)
        #expect(Self.sent(m.tick(now: .seconds(5))).map(\.0.method) == ["GET_PARAMETER"])  // cseq 5, unanswered
        #expect(Self.sent(m.tick(now: .seconds(9))).isEmpty)  // still waiting for it
        let afterSilence = m.tick(now: .seconds(10))
        let failed = afterSilence.contains {
            if case .failed = $0 { return true }
            return false
        }
        #expect(!failed)
        #expect(Self.sent(afterSilence).map(\.0.method) == ["OPTIONS"])  // cseq 6, at once: it was due
        #expect(m.receive(Self.answer(501, 6), now: .seconds(10)).isEmpty)  // refused: no end, no redirect
        #expect(Self.sent(m.tick(now: .seconds(15))).map(\.0.method) == ["SET_PARAMETER"])  // cseq 7
        // A 400 that carries the previous CSeq is stale: it answers nothing, and the next method follows.
        #expect(m.receive(Self.answer(400, 6), now: .seconds(15)).isEmpty)
        #expect(m.receive(Self.answer(302, 7, [("Location", "rtsp://elsewhere/x")]), now: .seconds(16)).isEmpty)
        let next = Self.sent(m.tick(now: .seconds(20)))
        #expect(next.map(\.0.method) == ["GET_PARAMETER"])
        let answered = m.receive(Self.answer(200, next.first?.1 ?? 0), now: .seconds(20))
        #expect(answered.isEmpty)
        #expect(Self.sent(m.tick(now: .seconds(25))).map(\.0.method) == ["GET_PARAMETER"])  // it works: kept
    }

    /// A keepalive is waited for no longer than the request timeout when that is the shorter (a 60 s session
    /// timeout, keepalives every 30 s, a 10 s request timeout).
    @Test func aKeepaliveIsGivenUpAtTheRequestTimeoutWhenThatIsSooner() throws {
        var m = try Self.machine()
        _ = Self.throughDescribe(&m)
        _ = m.receive(Self.answer(200, 3, [("Session", "S;timeout=60")]), now: .zero)
        _ = m.receive(Self.answer(200, 4), now: .zero)
        #expect(Self.sent(m.tick(now: .seconds(30))).map(\.0.method) == ["GET_PARAMETER"])  // unanswered
        #expect(Self.sent(m.tick(now: .seconds(39))).isEmpty)  // still waited for
        #expect(Self.sent(m.tick(now: .seconds(40))).isEmpty)  // given up at 10 s; the next is due at 60 s
        #expect(m.receive(Self.answer(200, 5), now: .seconds(41)).isEmpty)  // too late: answers nothing
        #expect(Self.sent(m.tick(now: .seconds(60))).map(\.0.method) == ["OPTIONS"])
    }

    /// The session's own requests are still bounded: a PLAY or SETUP left unanswered ends it.
    @Test func aRequestThatIsNoKeepaliveStillTimesOut() throws {
        var m = try Self.machine()
        _ = Self.throughDescribe(&m)
        _ = m.receive(Self.answer(200, 3, [("Session", "S;timeout=10")]), now: .zero)  // PLAY sent, never answered
        guard case .failed(let error)? = m.tick(now: .seconds(10)).first else {
            Issue.record("expected a timeout")
            return
        }
        #expect(error.code == .timeout)
        #expect(error.reason.contains("PLAY"))
    }

    @Test func serverRequestsAreAnswered() throws {
        var m = try Self.machine()
        let options = RTSPMessage(kind: .request(method: "OPTIONS", uri: "*"), headers: [("CSeq", "7")], body: [])
        let announce = RTSPMessage(kind: .request(method: "ANNOUNCE", uri: "*"), headers: [("CSeq", "8")], body: [])
        guard case .respond(200, _, 7)? = m.receive(options, now: .zero).first,
            case .respond(501, _, 8)? = m.receive(announce, now: .zero).first
        else {
            Issue.record("server requests not answered as expected")
            return
        }
    }

    @Test func redirectsAreFollowedButNeverFromRTSPSToRTSP() throws {
        var plain = try Self.machine()
        _ = plain.start(now: .zero)
        guard
            case .redirect(let target)? = plain.receive(
                Self.answer(302, 1, [("Location", "rtsp://cam2/live")]), now: .zero
            ).first
        else {
            Issue.record("expected a redirect")
            return
        }
        #expect(target.host == "cam2")
        var secure = try Self.machine("rtsps://cam/live")
        _ = secure.start(now: .zero)
        guard
            case .failed(let error)? = secure.receive(
                Self.answer(301, 1, [("Location", "rtsp://cam/live")]), now: .zero
            ).first
        else {
            Issue.record("a downgrade must be refused")
            return
        }
        #expect(error.code == .refusedRedirect)
    }

    @Test func unsupportedTransportFallsBackFromUDPToTCP() throws {
        var m = try Self.machine(transport: .udp(firstClientPort: 40000))
        let udp = try #require(Self.throughDescribe(&m))
        #expect(udp.headers["Transport"] == "RTP/AVP;unicast;client_port=40000-40001")
        let tcp = Self.sent(m.receive(Self.answer(461, 3), now: .zero))
        #expect(tcp.first?.0.headers["Transport"] == "RTP/AVP/TCP;unicast;interleaved=0-1")
    }

    /// Ended before it started (a tunnel whose GET is answered after the caller tore the session down):
    /// starting then sends nothing. FuzzRTSPClient found OPTIONS sent after the end.
    @Test func aMachineEndedBeforeItStartedSendsNothing() throws {
        var m = try Self.machine()
        #expect(m.teardown(now: .zero).contains { if case .closed = $0 { true } else { false } })
        #expect(Self.sent(m.start(now: .zero)).isEmpty)
        var started = try Self.machine()
        #expect(Self.sent(started.start(now: .zero)).map(\.0.method) == ["OPTIONS"])
        #expect(Self.sent(started.start(now: .zero)).isEmpty)  // once only
    }

    /// Ports are bound for six tracks before DESCRIBE says there are eight: SETUP never names a port past
    /// those bound (32 tracks once asked for ports up to 49891 with 49828-49839 bound); the two left are
    /// said, and play over TCP.
    @Test func udpSetsUpNoMoreTracksThanPortsWereBoundFor() throws {
        let sections = (0..<8).map { "m=audio 0 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=control:t\($0)\r\n" }
        let sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=cam\r\nt=0 0\r\n" + sections.joined()
        var m = RTSPClientStateMachine(
            configuration: .init(
                url: try RTSPURL("rtsp://cam/live"), transport: .udp(firstClientPort: 40000, portPairs: 6)))
        _ = m.start(now: .zero)
        _ = m.receive(Self.answer(200, 1, [("Public", "OPTIONS, DESCRIBE, SETUP, PLAY")]), now: .zero)
        var next = Self.sent(m.receive(Self.answer(200, 2, body: sdp), now: .zero))
        var ports: [String] = []
        var cseq = 3
        while let (request, _) = next.first, request.method == "SETUP" {
            ports.append(request.headers["Transport"] ?? "")
            next = Self.sent(m.receive(Self.answer(200, cseq, [("Session", "s")]), now: .zero))
            cseq += 1
        }
        #expect(ports == (0..<6).map { "RTP/AVP;unicast;client_port=\(40000 + 2 * $0)-\(40001 + 2 * $0)" })
        #expect(next.first?.0.method == "PLAY")
        #expect(
            m.tracks.count == 6
                && m.tracksWithoutPorts.map(\.control.description) == ["rtsp://cam/live/t6", "rtsp://cam/live/t7"])
    }

    @Test func multicastAsksForMulticastAndFallsBackToTCPOn461() throws {
        var m = try Self.machine(transport: .multicast)
        let multicast = try #require(Self.throughDescribe(&m))
        #expect(multicast.headers["Transport"] == "RTP/AVP;multicast")
        let tcp = Self.sent(m.receive(Self.answer(461, 3), now: .zero))
        #expect(tcp.first?.0.headers["Transport"] == "RTP/AVP/TCP;unicast;interleaved=0-1")
    }

    /// The groups are joined before PLAY (joined after, the first keyframe would be missed): the machine
    /// asks for the join and sends PLAY only when told it is done; a unicast answer needs no join.
    @Test func multicastJoinsItsGroupsBeforePlay() throws {
        var m = try Self.machine(transport: .multicast)
        _ = try #require(Self.throughDescribe(&m))
        let transport = "RTP/AVP;multicast;destination=232.0.1.2;port=5000-5001;ttl=1"
        let afterSetup = m.receive(Self.answer(200, 3, [("Session", "abc"), ("Transport", transport)]), now: .zero)
        #expect(Self.sent(afterSetup).isEmpty)
        let join = afterSetup.compactMap { if case .joinMulticast(let tracks) = $0 { tracks } else { nil } }
        #expect(join.first?.first?.transport?.destination == "232.0.1.2")
        #expect(Self.sent(m.multicastJoined(now: .seconds(1))).map(\.0.method) == [.play])
        #expect(m.multicastJoined(now: .seconds(1)).isEmpty)  // once
        var unicast = try Self.machine(transport: .multicast)
        _ = try #require(Self.throughDescribe(&unicast))
        let play = unicast.receive(
            Self.answer(200, 3, [("Session", "abc"), ("Transport", "RTP/AVP;unicast;client_port=5000-5001")]),
            now: .zero)
        #expect(Self.sent(play).map(\.0.method) == [.play])
    }

    @Test func pauseThenResumeWithKeepalivesInBetween() throws {
        var m = try Self.machine()
        _ = try #require(Self.throughDescribe(&m))
        _ = m.receive(
            Self.answer(200, 3, [("Session", "abc;timeout=10"), ("Transport", "RTP/AVP/TCP;interleaved=0-1")]),
            now: .zero)
        _ = m.receive(Self.answer(200, 4), now: .zero)  // PLAY
        #expect(Self.sent(m.resume(now: .zero)).isEmpty)  // not paused
        let pause = Self.sent(m.pause(now: .seconds(1)))
        #expect(pause.first?.0.method == "PAUSE")
        #expect(pause.first?.0.headers["Session"] == "abc")
        let paused = m.receive(Self.answer(200, 5), now: .seconds(1))
        #expect(paused.contains { if case .paused = $0 { true } else { false } })
        #expect(Self.sent(m.tick(now: .seconds(6))).first?.0.method == "GET_PARAMETER")  // keepalive while paused
        _ = m.receive(Self.answer(200, 6), now: .seconds(6))
        let resume = Self.sent(m.resume(now: .seconds(7)))
        #expect(resume.first?.0.method == "PLAY")
        #expect(resume.first?.0.headers["Range"] == nil)  // from where it paused
        let resumed = m.receive(Self.answer(200, 7), now: .seconds(7))
        #expect(resumed.contains { if case .resumed = $0 { true } else { false } })
    }

    @Test func answersToOldRequestsAreIgnoredAndTeardownCloses() throws {
        var m = try Self.machine()
        _ = Self.throughDescribe(&m)
        #expect(m.receive(Self.answer(200, 1), now: .zero).isEmpty)  // CSeq 1 was answered already
        _ = m.receive(Self.answer(200, 3, [("Session", "S")]), now: .zero)
        _ = m.receive(Self.answer(200, 4), now: .zero)
        let teardown = Self.sent(m.teardown(now: .seconds(1)))
        #expect(teardown.map(\.0.method) == ["TEARDOWN"])
        guard case .closed? = m.receive(Self.answer(200, 5), now: .seconds(1)).first else {
            Issue.record("expected closed")
            return
        }
    }
}
