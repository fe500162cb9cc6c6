import RTP
@_spi(SansIO) import RTSP
import SDP
import Testing

/// Digest as RFC 7616 means it, on the server's state machine: nonces of the connection's own that expire
/// (`stale=true`), the answer's `uri` checked against the request, nonce counts that must rise, and a header
/// captured on one connection useless on another.
@Suite struct DigestReplayTests {
    static let base = RTSPServerStateMachineTests.base
    static let credentials = Credentials(user: "admin", password: "s3cret")
    let t0 = ArrivalTime(nanoseconds: 1_000_000_000)

    static func machine(lifetime: Duration = .seconds(300)) -> RTSPServerStateMachine {
        RTSPServerStateMachineTests.machine {
            var authentication = ServerAuthentication(users: [credentials])
            authentication.nonceLifetime = lifetime
            $0.authentication = authentication
        }
    }

    static func request(_ method: String, _ uri: String, cseq: Int, _ headers: [(String, String)] = []) -> RTSPMessage {
        RTSPServerStateMachineTests.request(method, uri, cseq: cseq, headers)
    }

    /// The machine's challenge, read as this library's client reads it.
    static func challenge(_ machine: inout RTSPServerStateMachine, now: ArrivalTime) throws -> AuthenticationChallenge {
        let refused = machine.receive(request("DESCRIBE", base, cseq: 1), now: now)
        #expect(RTSPServerStateMachineTests.status(refused) == 401)
        let values = RTSPServerStateMachineTests.answer(refused)?.headers.filter { $0.name == "WWW-Authenticate" }.map(
            \.value)
        return try #require(AuthenticationChallenge.strongest(try AuthenticationChallenge.parse(values ?? [])))
    }

    static func challenges(_ actions: [RTSPServerStateMachine.Action]) throws -> [AuthenticationChallenge] {
        let values = RTSPServerStateMachineTests.answer(actions)?.headers.filter { $0.name == "WWW-Authenticate" }.map(
            \.value)
        return try AuthenticationChallenge.parse(values ?? [])
    }

    static func isGuess(_ actions: [RTSPServerStateMachine.Action]) -> Bool {
        if case .refuseAuthentication? = actions.first { return true }
        return false
    }

    /// The same Authorization header (same nonce count) played again is refused as a guess; the client's next
    /// count is taken.
    @Test func aRepeatedNonceCountIsRefused() throws {
        var machine = Self.machine()
        var client = Authenticator(challenge: try Self.challenge(&machine, now: t0), credentials: Self.credentials)
        let first = client.authorization(method: "DESCRIBE", uri: Self.base)
        #expect(first.contains("nc=00000001"))
        #expect(
            RTSPServerStateMachineTests.status(
                machine.receive(Self.request("DESCRIBE", Self.base, cseq: 2, [("Authorization", first)]), now: t0))
                == 200)
        let replayed = machine.receive(
            Self.request("DESCRIBE", Self.base, cseq: 3, [("Authorization", first)]), now: t0)
        #expect(Self.isGuess(replayed))
        let next = client.authorization(method: "DESCRIBE", uri: Self.base)
        #expect(
            RTSPServerStateMachineTests.status(
                machine.receive(Self.request("DESCRIBE", Self.base, cseq: 4, [("Authorization", next)]), now: t0))
                == 200)
    }

    /// An answer hashed for one path opens no other: its `uri` must name the request's resource (the absolute URL
    /// or its path).
    @Test func theAnswersURIMustBeTheRequests() throws {
        var machine = RTSPServerStateMachine(
            presentations: [
                .init(path: "/cam", formats: RTSPServerStateMachineTests.formats),
                .init(path: "/other", formats: RTSPServerStateMachineTests.formats),
            ],
            configuration: Self.machine().configuration)
        var client = Authenticator(challenge: try Self.challenge(&machine, now: t0), credentials: Self.credentials)
        let forCam = client.authorization(method: "DESCRIBE", uri: Self.base)
        let other = "rtsp://127.0.0.1:8554/other"
        #expect(
            Self.isGuess(
                machine.receive(Self.request("DESCRIBE", other, cseq: 2, [("Authorization", forCam)]), now: t0)))
        // The path alone, as HTTP clients write it, names the same resource.
        let byPath = client.authorization(method: "DESCRIBE", uri: "/other")
        #expect(
            RTSPServerStateMachineTests.status(
                machine.receive(Self.request("DESCRIBE", other, cseq: 3, [("Authorization", byPath)]), now: t0)) == 200)
    }

    /// A right answer to another connection's nonce (a header captured there) is stale here: 401 with
    /// `stale=true` and this connection's nonce, never the resource.
    @Test func anotherConnectionsNonceIsStaleHere() throws {
        var first = Self.machine()
        var client = Authenticator(challenge: try Self.challenge(&first, now: t0), credentials: Self.credentials)
        let captured = client.authorization(method: "DESCRIBE", uri: Self.base)
        var second = Self.machine()
        let answer = second.receive(
            Self.request("DESCRIBE", Self.base, cseq: 1, [("Authorization", captured)]), now: t0)
        #expect(RTSPServerStateMachineTests.status(answer) == 401)
        #expect(!Self.isGuess(answer))
        let challenge = try #require(try Self.challenges(answer).first)
        #expect(challenge.parameters["stale"] == "true")
        #expect(challenge.nonce != client.challenge.nonce)
    }

    /// A nonce lives its lifetime: a right answer after it is stale (`stale=true`, a new nonce), keeps the
    /// session it names alive, and the client's answer to the new nonce is taken.
    @Test func anExpiredNonceIsStaleAndTheNewOneWorks() throws {
        var machine = Self.machine(lifetime: .seconds(60))
        var client = Authenticator(challenge: try Self.challenge(&machine, now: t0), credentials: Self.credentials)
        let setup = Self.request(
            "SETUP", Self.base + "/trackID=0", cseq: 2,
            [
                ("Transport", "RTP/AVP/TCP;unicast;interleaved=0-1"),
                ("Authorization", client.authorization(method: "SETUP", uri: Self.base + "/trackID=0")),
            ])
        let answer = try #require(RTSPServerStateMachineTests.answer(machine.receive(setup, now: t0)))
        let session = try #require(answer.header("Session").flatMap(SessionHeader.init)).id
        // 50 s later the nonce is still good; at 70 s it is stale.
        let later = t0 + .seconds(50)
        let keepalive = client.authorization(method: "GET_PARAMETER", uri: Self.base)
        #expect(
            RTSPServerStateMachineTests.status(
                machine.receive(
                    Self.request(
                        "GET_PARAMETER", Self.base, cseq: 3, [("Session", session), ("Authorization", keepalive)]),
                    now: later)) == 200)
        let stale = t0 + .seconds(70)
        let old = client.authorization(method: "GET_PARAMETER", uri: Self.base)
        let refused = machine.receive(
            Self.request("GET_PARAMETER", Self.base, cseq: 4, [("Session", session), ("Authorization", old)]),
            now: stale)
        #expect(RTSPServerStateMachineTests.status(refused) == 401 && !Self.isGuess(refused))
        let renewed = try #require(try Self.challenges(refused).first)
        #expect(renewed.parameters["stale"] == "true")
        // The stale but right answer kept the session: it has not timed out 60 s after the last good request.
        #expect(machine.expire(now: later + .seconds(61)).isEmpty)
        client = Authenticator(challenge: renewed, credentials: Self.credentials)
        let fresh = client.authorization(method: "GET_PARAMETER", uri: Self.base)
        #expect(
            RTSPServerStateMachineTests.status(
                machine.receive(
                    Self.request(
                        "GET_PARAMETER", Self.base, cseq: 5, [("Session", session), ("Authorization", fresh)]),
                    now: stale)) == 200)
    }

    /// A request with no Authorization is challenged, not counted as a guess; a wrong password is.
    @Test func onlyWrongAnswersCountAsGuesses() throws {
        var machine = Self.machine()
        let challenge = try Self.challenge(&machine, now: t0)
        #expect(machine.authenticationFailures == 0)
        var wrong = Authenticator(challenge: challenge, credentials: Credentials(user: "admin", password: "guess"))
        for cseq in 2..<5 {
            let guess = wrong.authorization(method: "DESCRIBE", uri: Self.base)
            #expect(
                Self.isGuess(
                    machine.receive(
                        Self.request("DESCRIBE", Self.base, cseq: cseq, [("Authorization", guess)]), now: t0)))
        }
        #expect(machine.authenticationFailures == 3)
    }
}
