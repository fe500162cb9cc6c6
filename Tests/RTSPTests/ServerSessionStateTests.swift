import RTP
@_spi(SansIO) import RTSP
import Testing

/// The server machine's sessions carry their state; it says when it next has something to do instead of being
/// polled; what it serves is asked of its mounts at each request.
@Suite struct ServerSessionStateTests {
    typealias Machine = RTSPServerStateMachineTests
    let t0 = ArrivalTime(nanoseconds: 1_000_000_000)

    func setUp(_ machine: inout RTSPServerStateMachine, now: ArrivalTime) throws -> String {
        let answer = try #require(
            Machine.answer(
                machine.receive(
                    Machine.request(
                        "SETUP", Machine.base + "/trackID=0", cseq: 1, [("Transport", "RTP/AVP/TCP;interleaved=0-1")]),
                    now: now)))
        return try #require(answer.header("Session").flatMap(SessionHeader.init)).id
    }

    @Test func aSessionIsReadyThenPlayingThenPaused() throws {
        var machine = Machine.machine()
        let id = try setUp(&machine, now: t0)
        #expect(machine.state(ofSession: id) == .ready)
        _ = machine.receive(Machine.request("PLAY", Machine.base, cseq: 2, [("Session", id)]), now: t0 + .seconds(1))
        #expect(machine.state(ofSession: id) == .playing(since: t0 + .seconds(1)))
        // A PLAY while playing (a seek) keeps when it started.
        _ = machine.receive(Machine.request("PLAY", Machine.base, cseq: 3, [("Session", id)]), now: t0 + .seconds(2))
        #expect(machine.state(ofSession: id) == .playing(since: t0 + .seconds(1)))
        _ = machine.receive(Machine.request("PAUSE", Machine.base, cseq: 4, [("Session", id)]), now: t0 + .seconds(3))
        #expect(machine.state(ofSession: id) == .paused(since: t0 + .seconds(3)))
        _ = machine.receive(
            Machine.request("TEARDOWN", Machine.base, cseq: 5, [("Session", id)]), now: t0 + .seconds(4))
        #expect(machine.state(ofSession: id) == nil)
    }

    /// The wake-up time is the session's timeout from the last it heard; at it, and not a nanosecond before, the
    /// session ends.
    @Test func itWakesUpWhenASessionTimesOut() throws {
        var machine = Machine.machine { $0.sessionTimeout = .seconds(10) }
        #expect(machine.nextWakeUp == nil)
        let id = try setUp(&machine, now: t0)
        #expect(machine.nextWakeUp == t0 + .seconds(10))
        _ = machine.receive(
            Machine.request("GET_PARAMETER", Machine.base, cseq: 2, [("Session", id)]), now: t0 + .seconds(3))
        #expect(machine.nextWakeUp == t0 + .seconds(13))
        #expect(machine.expire(now: t0 + .seconds(13) + .nanoseconds(-1)).isEmpty)
        let expired = machine.expire(now: t0 + .seconds(13))
        #expect(expired.count == 1 && machine.state(ofSession: id) == nil)
        #expect(machine.nextWakeUp == nil)
    }

    /// The connection's deadlines say when they next fall due: checked a nanosecond before, nothing; at it, the
    /// verdict.
    @Test func deadlinesSayWhenTheyFallDue() {
        var deadlines = ConnectionDeadlines(
            requestTimeout: .seconds(10), idleTimeout: .seconds(60), stallTimeout: .seconds(30), now: t0)
        #expect(deadlines.nextDeadline(hasSessions: true) == nil)
        let idle = deadlines.nextDeadline(hasSessions: false)!
        #expect(deadlines.check(now: idle + .nanoseconds(-1), hasSessions: false) == .keep)
        #expect(deadlines.check(now: idle, hasSessions: false) == .idle)
        deadlines.framed(whole: 0, partial: true, now: t0 + .seconds(2))
        let partial = deadlines.nextDeadline(hasSessions: true)!
        #expect(deadlines.check(now: partial + .nanoseconds(-1), hasSessions: true) == .keep)
        #expect(deadlines.check(now: partial, hasSessions: true) == .requestTimedOut)
        deadlines.framed(whole: 1, partial: false, now: t0 + .seconds(3))
        deadlines.writability(false, now: t0 + .seconds(4))
        let stalled = deadlines.nextDeadline(hasSessions: true)!
        #expect(deadlines.check(now: stalled + .nanoseconds(-1), hasSessions: true) == .keep)
        #expect(deadlines.check(now: stalled, hasSessions: true) == .stalled)
    }

    /// Mounts are asked at each request: a path mounted after a 404 is served at the next DESCRIBE.
    @Test func mountsAreAskedAtEachRequest() {
        final class Mounts: RTSPServerPolicy, @unchecked Sendable {
            var mounted: [RTSPServerStateMachine.Presentation] = []
            func presentation(at path: String) -> RTSPServerStateMachine.Presentation? {
                mounted.presentation(at: path)
            }
        }
        let mounts = Mounts()
        var machine = RTSPServerStateMachine(policy: mounts)
        #expect(Machine.status(machine.receive(Machine.request("DESCRIBE", Machine.base, cseq: 1), now: t0)) == 404)
        mounts.mounted = [.init(path: "/cam/", formats: Machine.formats)]
        #expect(Machine.status(machine.receive(Machine.request("DESCRIBE", Machine.base, cseq: 2), now: t0)) == 200)
    }

    /// OPTIONS lists the methods it dispatches, and those it does not know get 501 with the same list.
    @Test func publicListsTheMethodsItServes() throws {
        var machine = Machine.machine()
        let options = try #require(Machine.answer(machine.receive(Machine.request("OPTIONS", "*", cseq: 1), now: t0)))
        let listed = options.header("Public")?.split(separator: ",").map { RTSPMethod(String($0.filter { $0 != " " })) }
        #expect(listed == RTSPServerStateMachine.methods)
        let unknown = machine.receive(Machine.request("ANNOUNCE", Machine.base, cseq: 2), now: t0)
        #expect(Machine.status(unknown) == 501 && Machine.answer(unknown)?.header("Public") == options.header("Public"))
        // Methods are case-sensitive in RFC 2326 but cameras' tools are not: a lower-case request is served.
        #expect(Machine.status(machine.receive(Machine.request("describe", Machine.base, cseq: 3), now: t0)) == 200)
    }
}
