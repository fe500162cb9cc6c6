import RTP
@_spi(SansIO) import RTSP
import SDP
import Testing

/// The server's machine asks its policy who may play what, at DESCRIBE, SETUP and each PLAY, as gortsplib's server
/// asks its handler: the rule is the application's, the machine has none of its own.
@Suite struct ServerPolicyTests {
    typealias Machine = RTSPServerStateMachineTests

    /// Alice plays /cam, Bob plays /yard; asked afresh at each request, so a rule that changes takes effect at the
    /// next one.
    final class Rule: RTSPServerPolicy, @unchecked Sendable {  // one test's thread reads and writes it
        var allowed: [String: Set<String>] = ["alice": ["/cam"], "bob": ["/yard"]]
        var asked: [(user: String?, path: String)] = []
        let presentations: [RTSPServerStateMachine.Presentation] = [
            .init(path: "/cam", formats: Machine.formats), .init(path: "/yard", formats: Machine.formats),
        ]
        func presentation(at path: String) -> RTSPServerStateMachine.Presentation? {
            presentations.presentation(at: path)
        }
        func allows(user: String?, toPlay path: String) -> Bool {
            asked.append((user, path))
            return user.map { allowed[$0]?.contains(path) == true } ?? false
        }
    }

    static let alice = ("Authorization", "Basic YWxpY2U6d29uZGVy")  // alice:wonder
    static let bob = ("Authorization", "Basic Ym9iOmJ1aWxkZXI=")  // bob:builder

    static func machine(_ rule: Rule) -> RTSPServerStateMachine {
        var configuration = RTSPServerStateMachine.Configuration()
        configuration.authentication = ServerAuthentication(
            users: [Credentials(user: "alice", password: "wonder"), Credentials(user: "bob", password: "builder")],
            schemes: [.basic])
        return RTSPServerStateMachine(policy: rule, configuration: configuration)
    }

    let t0 = ArrivalTime(nanoseconds: 0)

    @Test func eachUserPlaysOnlyWhatThePolicyAllows() throws {
        let rule = Rule()
        var machine = Self.machine(rule)
        let describe = { (user: (String, String), path: String, cseq: Int, machine: inout RTSPServerStateMachine) in
            Machine.answer(
                machine.receive(
                    Machine.request("DESCRIBE", "rtsp://127.0.0.1:8554\(path)", cseq: cseq, [user]), now: self.t0))
        }
        #expect(Machine.status([.respond(try #require(describe(Self.alice, "/cam", 1, &machine)))]) == 200)
        let refused = try #require(describe(Self.bob, "/cam", 2, &machine))
        guard case .response(403, _) = refused.kind else {
            Issue.record("Bob's DESCRIBE of /cam: \(refused.kind)")
            return
        }
        // The answer says what was refused without naming the user or who may.
        #expect(refused.header("Reason") == "this account may not play /cam")
        let text = String(decoding: refused.serialized(), as: UTF8.self)
        #expect(text.firstRange(of: "bob") == nil && text.firstRange(of: "alice") == nil)
        // A path Bob may not play is refused before it is looked up: he cannot tell a mounted one from another.
        let unknown = try #require(describe(Self.bob, "/nowhere", 3, &machine))
        guard case .response(403, _) = unknown.kind else {
            Issue.record("Bob's DESCRIBE of an unmounted path: \(unknown.kind)")
            return
        }
        // Bob's own path plays.
        #expect(Machine.status([.respond(try #require(describe(Self.bob, "/yard", 4, &machine)))]) == 200)
        #expect(rule.asked.map(\.user) == ["alice", "bob", "bob", "bob"])
    }

    @Test func setupAndEachPlayAskTheRuleAgain() throws {
        let rule = Rule()
        var machine = Self.machine(rule)
        let transport = ("Transport", "RTP/AVP/TCP;unicast;interleaved=0-1")
        // Bob cannot set up Alice's track, even naming it directly.
        let bobSetup = machine.receive(
            Machine.request("SETUP", Machine.base + "/trackID=0", cseq: 1, [Self.bob, transport]), now: t0)
        #expect(Machine.status(bobSetup) == 403)
        let setup = machine.receive(
            Machine.request("SETUP", Machine.base + "/trackID=0", cseq: 2, [Self.alice, transport]), now: t0)
        let session = try #require(Machine.answer(setup)?.header("Session").flatMap(SessionHeader.init)?.id)
        let play = { (cseq: Int, machine: inout RTSPServerStateMachine) in
            machine.receive(
                Machine.request("PLAY", Machine.base, cseq: cseq, [Self.alice, ("Session", session)]), now: self.t0)
        }
        let first = play(3, &machine)
        guard case .play? = first.first else {
            Issue.record("Alice's PLAY: \(first)")
            return
        }
        // The application takes /cam from Alice: her next PLAY is refused, her session kept for TEARDOWN.
        rule.allowed["alice"] = []
        #expect(Machine.status(play(4, &machine)) == 403)
        #expect(machine.sessionCount == 1)
        let teardown = machine.receive(
            Machine.request("TEARDOWN", Machine.base, cseq: 5, [Self.alice, ("Session", session)]), now: t0)
        #expect(Machine.status(teardown) == 200 && machine.sessionCount == 0)
    }

    @Test func withoutAuthenticationThePolicyIsAskedWithNoUser() throws {
        let rule = Rule()
        var machine = RTSPServerStateMachine(policy: rule)
        let refused = machine.receive(Machine.request("DESCRIBE", Machine.base, cseq: 1), now: t0)
        #expect(Machine.status(refused) == 403)
        #expect(Machine.answer(refused)?.header("Reason") == "this client may not play /cam")
        #expect(rule.asked.count == 1 && rule.asked.first?.user == nil)
        // A fixed list of presentations plays to everyone.
        var open = RTSPServerStateMachine(presentations: rule.presentations)
        #expect(Machine.status(open.receive(Machine.request("DESCRIBE", Machine.base, cseq: 1), now: t0)) == 200)
    }
}
