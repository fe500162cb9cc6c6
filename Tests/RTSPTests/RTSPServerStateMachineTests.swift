import RTP
@_spi(SansIO) import RTSP
import SDP
import Testing

/// The server's state machine, sans I/O: requests in, answers and media actions out.
@Suite struct RTSPServerStateMachineTests {
    static let formats: [MediaFormat] = [
        .video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1, profileLevelID: "42c01e")),
        .audio(AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000)),
    ]
    static let base = "rtsp://127.0.0.1:8554/cam"

    static func request(_ method: String, _ uri: String, cseq: Int, _ headers: [(String, String)] = []) -> RTSPMessage {
        RTSPMessage(kind: .request(method: method, uri: uri), headers: [("CSeq", "\(cseq)")] + headers, body: [])
    }

    static func machine(_ configure: (inout RTSPServerStateMachine.Configuration) -> Void = { _ in })
        -> RTSPServerStateMachine
    {
        var configuration = RTSPServerStateMachine.Configuration()
        configuration.udpPorts = (6970, 6971)
        configure(&configuration)
        return RTSPServerStateMachine(
            presentations: [.init(path: "/cam", formats: formats)], configuration: configuration)
    }

    static func answer(_ actions: [RTSPServerStateMachine.Action]) -> RTSPMessage? {
        for action in actions {
            switch action {
            case .respond(let message), .refuseAuthentication(let message): return message
            default: continue
            }
        }
        return nil
    }

    static func status(_ actions: [RTSPServerStateMachine.Action]) -> Int? {
        guard case .response(let status, _)? = answer(actions)?.kind else { return nil }
        return status
    }

    let t0 = ArrivalTime(nanoseconds: 0)

    @Test func describeAnswersWithAnSDPThatReadsBackAsTheFormats() throws {
        var machine = Self.machine()
        let answer = try #require(Self.answer(machine.receive(Self.request("DESCRIBE", Self.base, cseq: 2), now: t0)))
        #expect(answer.header("CSeq") == "2")
        #expect(answer.header("Content-Base") == Self.base + "/")
        #expect(answer.header("Content-Type") == "application/sdp")
        let sdp = try SessionDescription(String(decoding: answer.body, as: UTF8.self))
        #expect(sdp.media.compactMap(\.mediaFormat) == Self.formats)
        #expect(sdp.media.map(\.control) == ["trackID=0", "trackID=1"])
        #expect(
            Self.status(machine.receive(Self.request("DESCRIBE", "rtsp://127.0.0.1:8554/other", cseq: 3), now: t0))
                == 404)
    }

    @Test func setupOverTCPAndUDPThenPlayGivesTheTracksAndRTPInfo() throws {
        var machine = Self.machine()
        let first = try #require(
            Self.answer(
                machine.receive(
                    Self.request(
                        "SETUP", Self.base + "/trackID=0", cseq: 3,
                        [("Transport", "RTP/AVP/TCP;unicast;interleaved=4-5")]),
                    now: t0)))
        #expect(first.header("Transport") == "RTP/AVP/TCP;unicast;interleaved=4-5")
        let session = try #require(first.header("Session").flatMap(SessionHeader.init))
        #expect(session.timeout == .seconds(60))
        let second = try #require(
            Self.answer(
                machine.receive(
                    Self.request(
                        "SETUP", Self.base + "/trackID=1", cseq: 4,
                        [("Transport", "RTP/AVP;unicast;client_port=5000-5001"), ("Session", session.id)]), now: t0)))
        #expect(second.header("Transport") == "RTP/AVP;unicast;client_port=5000-5001;server_port=6970-6971")
        let actions = machine.receive(
            Self.request("PLAY", Self.base + "/", cseq: 5, [("Session", session.id)]), now: t0)
        guard case .play(let play)? = actions.first else {
            Issue.record("no play: \(actions)")
            return
        }
        #expect(play.path == "/cam" && play.session == session.id)
        #expect(play.tracks.map(\.transport) == [.interleaved(rtp: 4, rtcp: 5), .udp(rtp: 5000, rtcp: 5001)])
        let response = play.response(startingAt: [0: (100, 90_000), 1: (7, 8000)])
        #expect(response.header("CSeq") == "5")
        let info = RTPInfo(try #require(response.header("RTP-Info")))
        #expect(info.entries.map(\.sequenceNumber) == [100, 7] && info.entries.map(\.rtpTime) == [90_000, 8000])
        #expect(info.entries.first?.url == Self.base + "/trackID=0")
        let teardown = machine.receive(Self.request("TEARDOWN", Self.base, cseq: 6, [("Session", session.id)]), now: t0)
        #expect(Self.status(teardown) == 200)
        #expect(teardown.contains { if case .teardown(session.id) = $0 { true } else { false } })
        #expect(machine.sessionIDs.isEmpty)
    }

    @Test func requestsItCannotServeGetTheirStatus() throws {
        var machine = Self.machine { $0.udpPorts = nil }
        // No CSeq: 400.
        let noCSeq = RTSPMessage(kind: .request(method: "OPTIONS", uri: "*"), headers: [], body: [])
        #expect(Self.status(machine.receive(noCSeq, now: t0)) == 400)
        // UDP on a TCP-only server: 461; multicast: 461.
        let udp = Self.request(
            "SETUP", Self.base + "/trackID=0", cseq: 2, [("Transport", "RTP/AVP;unicast;client_port=5000-5001")])
        #expect(Self.status(machine.receive(udp, now: t0)) == 461)
        let multicast = Self.request("SETUP", Self.base + "/trackID=0", cseq: 3, [("Transport", "RTP/AVP;multicast")])
        #expect(Self.status(machine.receive(multicast, now: t0)) == 461)
        // A track that is not there: 404; a session that is not there: 454.
        let tcp = [("Transport", "RTP/AVP/TCP;interleaved=0-1")]
        #expect(
            Self.status(machine.receive(Self.request("SETUP", Self.base + "/trackID=9", cseq: 4, tcp), now: t0)) == 404)
        #expect(
            Self.status(machine.receive(Self.request("PLAY", Self.base, cseq: 5, [("Session", "NOPE")]), now: t0))
                == 454)
        #expect(Self.status(machine.receive(Self.request("PLAY", Self.base, cseq: 6), now: t0)) == 454)
        // What it does not know: 501; an option it does not support: 551, named.
        #expect(Self.status(machine.receive(Self.request("RECORD", Self.base, cseq: 7), now: t0)) == 501)
        let required = machine.receive(
            Self.request("DESCRIBE", Self.base, cseq: 8, [("Require", "www.onvif.org/ver20/backchannel")]), now: t0)
        #expect(Self.status(required) == 551)
        #expect(Self.answer(required)?.header("Unsupported") == "www.onvif.org/ver20/backchannel")
        // A bad URL: 400, never a crash.
        #expect(Self.status(machine.receive(Self.request("DESCRIBE", "http://x", cseq: 9), now: t0)) == 400)
    }

    /// A presentation sent as SRTP announces RTP/SAVP with its a=crypto key, and takes SETUPs for RTP/SAVP and for
    /// RTP/AVP (FFmpeg asks that, having read the key); a plain one refuses RTP/SAVP.
    @Test func anSRTPPresentationAnnouncesItsKeyAndTakesBothProfiles() throws {
        let crypto = "1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz"
        var machine = RTSPServerStateMachine(
            presentations: [.init(path: "/cam", formats: Self.formats, crypto: crypto)],
            configuration: RTSPServerStateMachine.Configuration())
        let described = try #require(
            Self.answer(machine.receive(Self.request("DESCRIBE", Self.base, cseq: 1), now: t0)))
        let sdp = try SessionDescription(String(decoding: described.body, as: UTF8.self))
        #expect(sdp.media.map(\.transportProtocol) == ["RTP/SAVP", "RTP/SAVP"])
        #expect(sdp.media.map(\.cryptoAttributes) == [[crypto], [crypto]])
        // Each in a session of its own (a connection holds one per path: the first is torn down first).
        for (cseq, transport) in [
            (2, "RTP/SAVP/TCP;unicast;interleaved=0-1"), (4, "RTP/AVP/TCP;unicast;interleaved=0-1"),
        ] {
            let answer = try #require(
                Self.answer(
                    machine.receive(
                        Self.request("SETUP", Self.base + "/trackID=0", cseq: cseq, [("Transport", transport)]), now: t0
                    )))
            #expect(answer.header("Transport") == transport)
            let session = try #require(answer.header("Session").flatMap(SessionHeader.init)).id
            #expect(
                Self.status(
                    machine.receive(
                        Self.request("TEARDOWN", Self.base, cseq: cseq + 1, [("Session", session)]), now: t0)) == 200)
        }
        var plain = Self.machine()
        let refused = plain.receive(
            Self.request("SETUP", Self.base + "/trackID=0", cseq: 4, [("Transport", "RTP/SAVP/TCP;interleaved=0-1")]),
            now: t0)
        #expect(Self.status(refused) == 461)
    }

    @Test func idleSessionsAreTornDownAfterTheTimeout() throws {
        var machine = Self.machine { $0.sessionTimeout = .seconds(10) }
        let setup = machine.receive(
            Self.request("SETUP", Self.base + "/trackID=0", cseq: 1, [("Transport", "RTP/AVP/TCP;interleaved=0-1")]),
            now: t0)
        let id = try #require(Self.answer(setup)?.header("Session").flatMap(SessionHeader.init)?.id)
        #expect(machine.expire(now: t0 + .seconds(9)).isEmpty)
        // A keepalive (GET_PARAMETER) and then RTCP from the client keep it.
        #expect(
            Self.status(
                machine.receive(
                    Self.request("GET_PARAMETER", Self.base, cseq: 2, [("Session", id)]), now: t0 + .seconds(8))) == 200
        )
        machine.noteActivity(now: t0 + .seconds(15))
        #expect(machine.expire(now: t0 + .seconds(24)).isEmpty)
        let expired = machine.expire(now: t0 + .seconds(26))
        #expect(expired.count == 1)
        #expect(machine.sessionIDs.isEmpty)
    }

    /// RFC 2617 section 3.5's example answer (Mufasa, "Circle Of Life") is accepted for the nonce the connection
    /// gave and the request it names; Basic as offered; a wrong password refused.
    @Test func digestAuthenticationAcceptsRFC2617sExample() throws {
        let users = [Credentials(user: "Mufasa", password: "Circle Of Life")]
        let authentication = ServerAuthentication(
            realm: "testrealm@host.com", users: users, schemes: [.digest, .basic])
        var nonces = DigestNonces()
        nonces.issue("dcd98b7102dd2f0e8b11d0f600bfb0c093", now: t0)
        let challenges = try AuthenticationChallenge.parse(
            authentication.challenges(nonce: "dcd98b7102dd2f0e8b11d0f600bfb0c093"))
        #expect(challenges.map(\.scheme) == [.digest, .basic])
        #expect(challenges.first?.nonce == "dcd98b7102dd2f0e8b11d0f600bfb0c093")
        let example =
            "Digest username=\"Mufasa\", realm=\"testrealm@host.com\", nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", "
            + "uri=\"/dir/index.html\", qop=auth, nc=00000001, cnonce=\"0a4f113b\", "
            + "response=\"6629fae49393a05397450978507c4ef1\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\""
        // The RFC's request is a GET of /dir/index.html; the method and the URI are part of the hash.
        let request = Self.request("GET", "/dir/index.html", cseq: 3, [("Authorization", example)])
        var other = nonces
        #expect(
            authentication.verify(request, method: "DESCRIBE", uri: "/dir/index.html", nonces: &other, now: t0)
                == .wrong)
        #expect(
            authentication.verify(request, method: "GET", uri: "/dir/index.html", nonces: &nonces, now: t0)
                == .authenticated(user: "Mufasa"))
        var machine = Self.machine { $0.authentication = authentication }
        #expect(Self.status(machine.receive(Self.request("OPTIONS", "*", cseq: 1), now: t0)) == 200)
        #expect(Self.status(machine.receive(Self.request("DESCRIBE", Self.base, cseq: 2), now: t0)) == 401)
        let basic = "Basic " + "TXVmYXNhOkNpcmNsZSBPZiBMaWZl"  // Mufasa:Circle Of Life
        #expect(
            Self.status(
                machine.receive(Self.request("DESCRIBE", Self.base, cseq: 5, [("Authorization", basic)]), now: t0))
                == 200)
        let wrong = "Basic " + "TXVmYXNhOkNpcmNsZSBPZiBEZWF0aA=="  // Mufasa:Circle Of Death
        let refused = machine.receive(Self.request("DESCRIBE", Self.base, cseq: 6, [("Authorization", wrong)]), now: t0)
        guard case .refuseAuthentication(let answer)? = refused.first else {
            Issue.record("a wrong password is not refused as a guess: \(refused)")
            return
        }
        #expect(answer.kind == .response(statusCode: 401, reason: "Unauthorized"))
        #expect(machine.authenticationFailures == 1)
    }

    /// This library's client answers the server's challenge and is let in.
    @Test func theClientsDigestAnswerIsAccepted() throws {
        var machine = Self.machine {
            $0.authentication = ServerAuthentication(users: [Credentials(user: "admin", password: "s3cret:x")])
        }
        let refused = machine.receive(Self.request("DESCRIBE", Self.base, cseq: 1), now: t0)
        let challenge = try #require(
            AuthenticationChallenge.strongest(
                try AuthenticationChallenge.parse([Self.answer(refused)?.header("WWW-Authenticate") ?? ""])))
        var authenticator = Authenticator(
            challenge: challenge, credentials: Credentials(user: "admin", password: "s3cret:x"))
        let value = authenticator.authorization(method: "DESCRIBE", uri: Self.base)
        #expect(
            Self.status(
                machine.receive(Self.request("DESCRIBE", Self.base, cseq: 2, [("Authorization", value)]), now: t0))
                == 200)
        var wrong = Authenticator(challenge: challenge, credentials: Credentials(user: "admin", password: "guess"))
        let bad = wrong.authorization(method: "DESCRIBE", uri: Self.base)
        let guess = machine.receive(Self.request("DESCRIBE", Self.base, cseq: 3, [("Authorization", bad)]), now: t0)
        guard case .refuseAuthentication(let answer)? = guess.first else {
            Issue.record("a wrong password is not refused as a guess: \(guess)")
            return
        }
        #expect(answer.kind == .response(statusCode: 401, reason: "Unauthorized"))
    }
}
