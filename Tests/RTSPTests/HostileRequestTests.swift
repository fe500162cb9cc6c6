import RTP
@_spi(SansIO) import RTSP
import SDP
import Testing

/// What a hostile client sends the server's machine: text that would break an answer's lines, transports that are
/// not what they seem, sessions piled on one connection; and the budget's deadlines and the guessers' throttle,
/// sans I/O.
@Suite struct HostileRequestTests {
    let t0 = ArrivalTime(nanoseconds: 5_000_000_000)
    static let base = RTSPServerStateMachineTests.base

    static func request(_ method: String, _ uri: String, cseq: String, _ headers: [(String, String)] = [])
        -> RTSPMessage
    {
        RTSPMessage(kind: .request(method: method, uri: uri), headers: [("CSeq", cseq)] + headers, body: [])
    }

    /// A CSeq that is not digits is refused (it is echoed: a bare CR in it split the answer), and no answer line
    /// carries a line break whatever a field holds.
    @Test func aCSeqThatIsNotDigitsIsRefusedAndNothingSplitsAnAnswer() throws {
        var machine = RTSPServerStateMachineTests.machine()
        for cseq in ["1\rInjected: yes", "1\nX: y", "abc", "-1", "1234567890", ""] {
            let actions = machine.receive(Self.request("OPTIONS", "*", cseq: cseq), now: t0)
            let answer = try #require(RTSPServerStateMachineTests.answer(actions))
            #expect(answer.kind == .response(statusCode: 400, reason: "Bad Request"))
            #expect(answer.header("CSeq") == "0")
        }
        let hostile = RTSPMessage(
            kind: .response(statusCode: 200, reason: "OK\r\nX-Injected: 1"),
            headers: [("CSeq", "1\rX-Injected: 2"), ("Session\n", "a\r\nX-Injected: 3")], body: [])
        let text = String(decoding: hostile.serialized(), as: UTF8.self)
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        #expect(lines.count == 5, "\(lines)")  // start line, two headers, the empty line, nothing after it
        #expect(!text.dropLast(4).contains("\r\n\r\n"))
        #expect(text.filter { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }.count == 4)
    }

    /// Ports and channels are digits, one or two of them: `client_port=-5--4` is no port pair.
    @Test func signedOrEmptyPortsAreNotPorts() {
        #expect(TransportHeader("RTP/AVP;unicast;client_port=-5--4").clientPorts == nil)
        #expect(TransportHeader("RTP/AVP;unicast;client_port=5000-").clientPorts == nil)
        #expect(TransportHeader("RTP/AVP;unicast;client_port=5000--5001").clientPorts == nil)
        #expect(TransportHeader("RTP/AVP;unicast;client_port=+5000-5001").clientPorts == nil)
        #expect(TransportHeader("RTP/AVP;unicast;client_port=70000-70001").clientPorts == nil)
        #expect(TransportHeader("RTP/AVP;unicast;client_port=5000-5001").clientPorts! == (5000, 5001))
        #expect(TransportHeader("RTP/AVP;unicast;client_port=5000").clientPorts! == (5000, 5001))
        #expect(TransportHeader("RTP/AVP/TCP;interleaved=0").interleavedChannels! == (0, 1))
        var machine = RTSPServerStateMachineTests.machine()
        let setup = Self.request(
            "SETUP", Self.base + "/trackID=0", cseq: "1", [("Transport", "RTP/AVP;unicast;client_port=-5--4")])
        #expect(RTSPServerStateMachineTests.status(machine.receive(setup, now: t0)) == 461)
    }

    /// A SETUP that asks to record is refused with the reason: this server plays.
    @Test func aRecordingSetupIsRefused() throws {
        #expect(TransportHeader("RTP/AVP/TCP;unicast;interleaved=0-1;mode=\"RECORD\"").mode == "record")
        var machine = RTSPServerStateMachineTests.machine()
        let setup = Self.request(
            "SETUP", Self.base + "/trackID=0", cseq: "1",
            [("Transport", "RTP/AVP/TCP;unicast;interleaved=0-1;mode=record")])
        let answer = try #require(RTSPServerStateMachineTests.answer(machine.receive(setup, now: t0)))
        #expect(answer.kind == .response(statusCode: 461, reason: "Unsupported Transport"))
        #expect(answer.header("Reason")?.contains("mode=record") == true)
        let play = Self.request(
            "SETUP", Self.base + "/trackID=0", cseq: "2",
            [("Transport", "RTP/AVP/TCP;unicast;interleaved=0-1;mode=PLAY")])
        #expect(RTSPServerStateMachineTests.status(machine.receive(play, now: t0)) == 200)
    }

    /// One session per path on a connection (each would be a full copy of the media): a second SETUP without the
    /// first's Session is refused, naming it.
    @Test func aConnectionHoldsOneSessionPerPath() throws {
        var machine = RTSPServerStateMachineTests.machine()
        let transport = ("Transport", "RTP/AVP/TCP;unicast;interleaved=0-1")
        let first = try #require(
            RTSPServerStateMachineTests.answer(
                machine.receive(Self.request("SETUP", Self.base + "/trackID=0", cseq: "1", [transport]), now: t0)))
        let session = try #require(first.header("Session").flatMap(SessionHeader.init)).id
        let second = try #require(
            RTSPServerStateMachineTests.answer(
                machine.receive(Self.request("SETUP", Self.base + "/trackID=0", cseq: "2", [transport]), now: t0)))
        #expect(second.kind == .response(statusCode: 453, reason: "Not Enough Bandwidth"))
        #expect(second.header("Reason")?.contains(session) == true)
        #expect(machine.sessionIDs == [session])
    }

    /// A request's clock starts with its first byte and stops when it is whole; bytes that never make a request
    /// keep nothing open; a connection that does not drain is closed after the stall timeout.
    @Test func deadlinesCountWholeRequestsOnly() {
        var deadlines = ConnectionDeadlines(
            requestTimeout: .seconds(10), idleTimeout: .seconds(60), stallTimeout: .seconds(30), now: t0)
        #expect(deadlines.check(now: t0 + .seconds(59), hasSessions: false) == .keep)
        #expect(deadlines.check(now: t0 + .seconds(61), hasSessions: false) == .idle)
        #expect(deadlines.check(now: t0 + .seconds(61), hasSessions: true) == .keep)
        // A slowloris: a byte every second, never a whole request.
        for second in 0..<10 { deadlines.framed(whole: 0, partial: true, now: t0 + .seconds(second)) }
        #expect(deadlines.check(now: t0 + .seconds(10), hasSessions: true) == .keep)
        #expect(deadlines.check(now: t0 + .seconds(11), hasSessions: true) == .requestTimedOut)
        // A whole request resets both clocks.
        deadlines.framed(whole: 1, partial: false, now: t0 + .seconds(11))
        #expect(deadlines.check(now: t0 + .seconds(30), hasSessions: false) == .keep)
        #expect(deadlines.check(now: t0 + .seconds(72), hasSessions: false) == .idle)
        // Not writable for longer than the stall timeout.
        deadlines.writability(false, now: t0 + .seconds(12))
        deadlines.writability(false, now: t0 + .seconds(20))
        #expect(deadlines.check(now: t0 + .seconds(41), hasSessions: true) == .keep)
        #expect(deadlines.check(now: t0 + .seconds(43), hasSessions: true) == .stalled)
        deadlines.writability(true, now: t0 + .seconds(43))
        #expect(deadlines.check(now: t0 + .seconds(43), hasSessions: true) == .keep)
    }

    /// The first wrong answer goes at once; then each is held twice as long up to the cap, and one address's
    /// holds queue one after another (parallel connections gain nothing); another address is not held; a quiet
    /// minute forgives.
    @Test func wrongAnswersAreSlowedPerAddress() {
        var throttle = AuthenticationThrottle()
        #expect(throttle.delay(afterFailureFrom: "10.0.0.1", now: t0) == .zero)
        #expect(throttle.delay(afterFailureFrom: "10.0.0.1", now: t0) == .milliseconds(125))
        #expect(throttle.delay(afterFailureFrom: "10.0.0.1", now: t0) == .milliseconds(375))  // queued behind 125 ms
        #expect(throttle.delay(afterFailureFrom: "10.0.0.2", now: t0) == .zero)
        var total = Duration.zero
        for _ in 0..<100 { total = throttle.delay(afterFailureFrom: "10.0.0.1", now: t0) }
        // 100 more guesses at once wait, the last, at least 4 s each after the first few.
        #expect(total > .seconds(350))
        #expect(throttle.delay(afterFailureFrom: "10.0.0.1", now: t0 + .seconds(5000)) == .zero)
        throttle.maxAddresses = 10
        for index in 0..<1000 { _ = throttle.delay(afterFailureFrom: "192.0.2.\(index)", now: t0) }
        #expect(throttle.count <= 10)
    }
}
