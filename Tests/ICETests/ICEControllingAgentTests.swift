@_spi(SansIO) import ICE
import PacketCapture
import RTP
import Testing

/// The controlling agent a publisher runs, against the ICE-lite agent this library's server runs as the endpoint
/// (both sans I/O, datagrams handed across in memory): checked, nominated, selected both sides; retransmitted,
/// given up, consent kept and lost; answers that do not authenticate ignored.
@Suite struct ICEControllingAgentTests {
    let publisher = SocketAddress(address: .v4(0xC0A8_0107), port: 51_000)
    let endpoint = SocketAddress(address: .v4(0xC0A8_0101), port: 8_189)
    let silent = SocketAddress(address: .v4(0xC0A8_0199), port: 9_999)
    let ours = ICELiteAgent.Credentials(usernameFragment: "PubL", password: "publisher-password-012345")
    let theirs = ICELiteAgent.Credentials(usernameFragment: "EndP", password: "endpoint-password-6789abc")
    let t0 = ArrivalTime(nanoseconds: 1_000_000_000)

    func sent(_ actions: [ICEControllingAgent.Action]) -> [(bytes: [UInt8], to: SocketAddress)] {
        actions.compactMap { if case .send(let bytes, let to) = $0 { (bytes, to) } else { nil } }
    }

    /// Its checks go to each candidate; the endpoint that answers is selected here, and nominated there.
    @Test func aCheckedCandidateIsSelectedBothWays() throws {
        var agent = ICEControllingAgent(local: ours, remote: theirs, candidates: [silent, endpoint])
        var lite = ICELiteAgent(local: theirs, remoteUsernameFragment: ours.usernameFragment)
        let checks = sent(agent.start(now: t0))
        #expect(checks.map(\.to) == [silent, endpoint])
        let check = try STUNMessage(parsing: checks[1].bytes)
        #expect(check.useCandidate && check.iceControlling != nil && check.priority == ICEControllingAgent.hostPriority)
        let answered = lite.receive(checks[1].bytes, from: publisher, now: t0)
        #expect(answered.contains(.selected(publisher)))
        var selected: [ICEControllingAgent.Action] = []
        for case .send(let bytes, let to) in answered {
            #expect(to == publisher)
            selected += agent.receive(bytes, from: endpoint, now: t0)
        }
        #expect(selected == [.selected(endpoint)] && agent.selected == endpoint)
        // The silent candidate is checked no more: nothing is due before consent.
        #expect(agent.nextWakeUp == t0 + .seconds(5))
    }

    /// The endpoint's own checks are answered (from a candidate it named, with its integrity); one from elsewhere,
    /// or keyed wrong, is not.
    @Test func theEndpointsChecksAreAnswered() throws {
        var agent = ICEControllingAgent(local: ours, remote: theirs, candidates: [endpoint])
        _ = agent.start(now: t0)
        func request(_ password: String) -> [UInt8] {
            STUNMessage(
                .request, transactionID: [UInt8](repeating: 3, count: 12),
                attributes: [.username("\(ours.usernameFragment):\(theirs.usernameFragment)")]
            ).serialized(integrityKey: Array(password.utf8))
        }
        let answer = sent(agent.receive(request(ours.password), from: endpoint, now: t0))
        #expect(answer.count == 1 && answer.first?.to == endpoint)
        let response = try STUNMessage(parsing: try #require(answer.first).bytes)
        #expect(response.messageClass == .successResponse && response.xorMappedAddress == endpoint)
        #expect(response.integrityIsValid(key: Array(ours.password.utf8)))
        #expect(agent.receive(request(ours.password), from: silent, now: t0).isEmpty)
        #expect(agent.receive(request("not-the-password-at-all!"), from: endpoint, now: t0).isEmpty)
    }

    /// A check nobody answers is sent again, the same bytes, at 100, 200, 400... ms, seven sends in all; then ICE
    /// has failed, and says so. An answer keyed with the wrong password selects nothing.
    @Test func unansweredChecksAreRetransmittedThenGivenUp() throws {
        var agent = ICEControllingAgent(local: ours, remote: theirs, candidates: [endpoint])
        let first = try #require(sent(agent.start(now: t0)).first)
        var now = t0
        var sends = 1
        var failure: String?
        while let due = agent.nextWakeUp, failure == nil {
            #expect(due - now == .milliseconds(100) * (1 << (sends - 1)))
            now = due
            for action in agent.wake(now: now) {
                switch action {
                case .send(let bytes, _):
                    #expect(bytes == first.bytes)
                    sends += 1
                case .failed(let reason): failure = reason
                case .selected: Issue.record("selected without an answer")
                }
            }
        }
        #expect(sends == 7 && failure?.contains("no check") == true && agent.isFailed)

        var forged = ICEControllingAgent(local: ours, remote: theirs, candidates: [endpoint])
        let check = try STUNMessage(parsing: try #require(sent(forged.start(now: t0)).first).bytes)
        let wrong = STUNMessage(
            .successResponse, transactionID: check.transactionID,
            attributes: [.xorMappedAddress(publisher, transactionID: check.transactionID)]
        ).serialized(integrityKey: Array("someone-elses-password-0".utf8))
        #expect(forged.receive(wrong, from: endpoint, now: t0).isEmpty && forged.selected == nil)
    }

    /// Once selected, consent is asked every 5 s (a check that nominates nothing); answered, it holds; 30 s
    /// without an answer and the agent fails.
    @Test func consentIsKeptAndLost() throws {
        var agent = ICEControllingAgent(local: ours, remote: theirs, candidates: [endpoint])
        var lite = ICELiteAgent(local: theirs, remoteUsernameFragment: ours.usernameFragment)
        func exchange(_ actions: [ICEControllingAgent.Action], at now: ArrivalTime) -> [ICEControllingAgent.Action] {
            var back: [ICEControllingAgent.Action] = []
            for (bytes, _) in sent(actions) {
                for case .send(let answer, _) in lite.receive(bytes, from: publisher, now: now) {
                    back += agent.receive(answer, from: endpoint, now: now)
                }
            }
            return back
        }
        #expect(exchange(agent.start(now: t0), at: t0) == [.selected(endpoint)])
        let consent = agent.wake(now: t0 + .seconds(5))
        let request = try STUNMessage(parsing: try #require(sent(consent).first).bytes)
        #expect(!request.useCandidate)
        #expect(exchange(consent, at: t0 + .seconds(5)).isEmpty && !agent.isFailed)
        // The endpoint goes quiet: consent checks go out unanswered until 30 s after the last answer.
        var now = t0 + .seconds(5)
        var failure: String?
        while failure == nil, let due = agent.nextWakeUp {
            now = due
            for case .failed(let reason) in agent.wake(now: now) { failure = reason }
        }
        #expect(now == t0 + .seconds(35) && failure?.contains("consent") == true)
    }
}
