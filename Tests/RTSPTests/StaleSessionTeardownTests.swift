import Testing

@_spi(SansIO) @testable import RTSP

/// A session an earlier connection left on the server (the connection broke, the server never saw its
/// TEARDOWN): the next connection tears it down first, then starts, whatever the answer. Cameras keep a
/// slot per session until it times out; a client that reconnects without this fills them.
@Suite struct StaleSessionTeardownTests {
    typealias Machine = RTSPClientStateMachine
    static func answer(_ status: Int, _ cseq: Int, _ headers: [(String, String)] = []) -> RTSPMessage {
        RTSPClientStateMachineTests.answer(status, cseq, headers)
    }
    static func sent(_ actions: [Machine.Action]) -> [(RTSPRequest, Int)] { RTSPClientStateMachineTests.sent(actions) }

    static func machine(credentials: Credentials? = nil, only: Bool = false) throws -> Machine {
        Machine(
            configuration: .init(
                url: try RTSPURL("rtsp://cam/live"), credentials: credentials, staleSession: "OLD1",
                onlyTearsDownStaleSession: only))
    }

    @Test(arguments: [200, 454, 500])
    func theStaleSessionIsTornDownFirstThenTheSessionStarts(status: Int) throws {
        var m = try Self.machine()
        let first = Self.sent(m.start(now: .zero))
        #expect(first.map(\.0.method) == ["TEARDOWN"])
        #expect(first.first?.0.headers["Session"] == "OLD1")
        // 200, or 454 Session Not Found from a server that restarted, or an error: OPTIONS next, never a failure.
        let next = m.receive(Self.answer(status, 1), now: .milliseconds(10))
        #expect(Self.sent(next).map(\.0.method) == ["OPTIONS"])
        #expect(!next.contains { if case .failed = $0 { true } else { false } })
        let describe = Self.sent(m.receive(Self.answer(200, 2), now: .milliseconds(20)))
        #expect(describe.map(\.0.method) == ["DESCRIBE"])
    }

    @Test func anUnansweredStaleTeardownIsGivenUpAfterTheRequestTimeout() throws {
        var m = try Self.machine()
        _ = m.start(now: .zero)
        #expect(Self.sent(m.tick(now: .seconds(9))).isEmpty)
        let next = m.tick(now: .seconds(10))
        #expect(Self.sent(next).map(\.0.method) == ["OPTIONS"])
        #expect(!next.contains { if case .failed = $0 { true } else { false } })
        // The late answer to the TEARDOWN is not taken for OPTIONS'.
        #expect(Self.sent(m.receive(Self.answer(200, 1), now: .seconds(11))).isEmpty)
        #expect(Self.sent(m.receive(Self.answer(200, 2), now: .seconds(11))).map(\.0.method) == ["DESCRIBE"])
    }

    /// A camera that wants credentials for TEARDOWN gets them (and they go on with OPTIONS); one that refuses
    /// them leaves the stale session to its timeout, and the new one starts anyway (its own 401 then decides).
    @Test func aStaleTeardownIsAuthenticatedAndARefusalIsNoFailure() throws {
        let challenge = ("WWW-Authenticate", "Basic realm=\"cam\"")
        var m = try Self.machine(credentials: Credentials(user: "u", password: "p"))
        _ = m.start(now: .zero)
        let retry = Self.sent(m.receive(Self.answer(401, 1, [challenge]), now: .zero))
        #expect(retry.map(\.0.method) == ["TEARDOWN"])
        #expect(retry.first?.0.headers["Authorization"]?.hasPrefix("Basic ") == true)
        let options = Self.sent(m.receive(Self.answer(200, 2), now: .zero))
        #expect(options.first?.0.method == "OPTIONS")
        #expect(options.first?.0.headers["Authorization"]?.hasPrefix("Basic ") == true)

        var refused = try Self.machine(credentials: Credentials(user: "u", password: "wrong"))
        _ = refused.start(now: .zero)
        _ = refused.receive(Self.answer(401, 1, [challenge]), now: .zero)
        let next = refused.receive(Self.answer(401, 2, [challenge]), now: .zero)
        #expect(Self.sent(next).map(\.0.method) == ["OPTIONS"])

        var anonymous = try Self.machine()
        _ = anonymous.start(now: .zero)
        #expect(
            Self.sent(anonymous.receive(Self.answer(401, 1, [challenge]), now: .zero)).map(\.0.method) == ["OPTIONS"])
    }

    /// Ending a session while it waits to reconnect: only the stale session's TEARDOWN, then closed.
    @Test func onlyTheStaleTeardownThenClosed() throws {
        var m = try Self.machine(only: true)
        #expect(Self.sent(m.start(now: .zero)).map(\.0.method) == ["TEARDOWN"])
        let end = m.receive(Self.answer(454, 1), now: .zero)
        #expect(end.count == 1)
        #expect(end.contains { if case .closed = $0 { true } else { false } })
        var silent = try Self.machine(only: true)
        _ = silent.start(now: .zero)
        #expect(silent.tick(now: .seconds(10)).contains { if case .closed = $0 { true } else { false } })
    }
}
