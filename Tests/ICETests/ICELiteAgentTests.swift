@_spi(SansIO) import ICE
import PacketCapture
import RTP
import Testing

/// The ICE-lite agent, sans I/O: a viewer's checks answered and its address selected; everything else (another
/// username, a wrong password, a tampered message, a flood of addresses) answered with nothing; consent lost after
/// 30 s without a check.
@Suite struct ICELiteAgentTests {
    let local = ICELiteAgent.Credentials(usernameFragment: "LoCa", password: "local-password-0123456789")
    let t0 = ArrivalTime(nanoseconds: 5_000_000_000)
    let viewer = SocketAddress(address: .v4(0xC0A8_0105), port: 50_000)

    /// A viewer's check as a full agent writes it (RFC 8445 section 7.2.2).
    func check(
        username: String = "LoCa:ReMo", password: String = "local-password-0123456789", nominate: Bool = false,
        controlled: Bool = false, id: UInt8 = 1
    ) -> [UInt8] {
        var attributes: [STUNAttribute] = [
            .username(username), STUNAttribute(type: STUNAttribute.priority, value: [0x6e, 0, 1, 0xff]),
            STUNAttribute(
                type: controlled ? STUNAttribute.iceControlled : STUNAttribute.iceControlling,
                value: [1, 2, 3, 4, 5, 6, 7, 8]),
        ]
        if nominate { attributes.append(STUNAttribute(type: STUNAttribute.useCandidate, value: [])) }
        let transaction = [UInt8](repeating: id, count: 12)
        return STUNMessage(.request, transactionID: transaction, attributes: attributes).serialized(
            integrityKey: Array(password.utf8))
    }

    @Test func aChecksAnswerNamesItsSourceAndSelectsIt() throws {
        var agent = ICELiteAgent(local: local, remoteUsernameFragment: "ReMo")
        #expect(!agent.isChecked(viewer))
        let actions = agent.receive(check(), from: viewer, now: t0)
        guard case .send(let bytes, let to)? = actions.first else {
            Issue.record("no answer: \(actions)")
            return
        }
        #expect(to == viewer)
        let answer = try STUNMessage(parsing: bytes)
        #expect(answer.messageClass == .successResponse && answer.transactionID == [UInt8](repeating: 1, count: 12))
        #expect(answer.xorMappedAddress == viewer)
        #expect(answer.integrityIsValid(key: Array(local.password.utf8)) && answer.fingerprintIsValid)
        #expect(actions.dropFirst().first == .selected(viewer))
        #expect(agent.isChecked(viewer) && agent.selected == viewer)
        // A nomination from another checked address moves media there; a later plain check does not move it back.
        let other = SocketAddress(address: .v4(0x0A00_0002), port: 40_000)
        #expect(agent.receive(check(nominate: true, id: 2), from: other, now: t0).last == .selected(other))
        #expect(agent.receive(check(id: 3), from: viewer, now: t0).count == 1)
        #expect(agent.selected == other)
    }

    @Test func checksItCannotTrustGetNoAnswer() {
        var agent = ICELiteAgent(local: local, remoteUsernameFragment: "ReMo")
        #expect(agent.receive(check(username: "LoCa:Other"), from: viewer, now: t0).isEmpty)
        #expect(agent.receive(check(password: "guess"), from: viewer, now: t0).isEmpty)
        var tampered = check()
        tampered[41] ^= 1  // in PRIORITY's value
        #expect(agent.receive(tampered, from: viewer, now: t0).isEmpty)
        #expect(agent.receive([0, 1, 0, 0], from: viewer, now: t0).isEmpty)
        #expect(agent.counts.otherUsername == 1 && agent.counts.failedIntegrity == 2 && agent.counts.malformed == 1)
        #expect(!agent.isChecked(viewer) && agent.selected == nil)
    }

    /// A viewer that says it is controlled too is told to take the controlling role (487), and is not checked.
    @Test func aRoleConflictIsAnswered487() throws {
        var agent = ICELiteAgent(local: local, remoteUsernameFragment: "ReMo")
        let actions = agent.receive(check(controlled: true), from: viewer, now: t0)
        guard case .send(let bytes, _)? = actions.first else {
            Issue.record("no answer")
            return
        }
        #expect(try STUNMessage(parsing: bytes).errorCode?.code == 487)
        #expect(!agent.isChecked(viewer))
    }

    /// A viewer's addresses are bounded: past maxAddresses, a check from a new address is not answered.
    @Test func addressesAreBounded() {
        var agent = ICELiteAgent(local: local, remoteUsernameFragment: "ReMo")
        for port in 0..<100 {
            _ = agent.receive(check(), from: SocketAddress(address: .v4(0x0A00_0001), port: UInt16(port)), now: t0)
        }
        #expect(agent.counts.tooManyAddresses == 100 - agent.maxAddresses)
    }

    /// Consent lasts 30 s from the last check (RFC 7675): at it, the address is lost and nothing may go there.
    @Test func consentIsLostThirtySecondsAfterTheLastCheck() {
        var agent = ICELiteAgent(local: local, remoteUsernameFragment: "ReMo")
        _ = agent.receive(check(), from: viewer, now: t0)
        _ = agent.receive(check(id: 2), from: viewer, now: t0 + .seconds(20))
        #expect(agent.nextWakeUp == t0 + .seconds(50))
        #expect(agent.expire(now: t0 + .seconds(50) + .nanoseconds(-1)).isEmpty)
        #expect(agent.expire(now: t0 + .seconds(50)) == [.consentLost(viewer)])
        #expect(!agent.isChecked(viewer) && agent.selected == nil && agent.nextWakeUp == nil)
        // A new check brings it back.
        #expect(agent.receive(check(id: 3), from: viewer, now: t0 + .seconds(60)).last == .selected(viewer))
    }
}
