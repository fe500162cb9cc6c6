@_spi(SansIO) import DTLS
@_spi(SansIO) import ICE
import PacketCapture
@_spi(SansIO) import RTP
import SRTP

/// A publisher's transport to a WHIP endpoint, sans I/O: the mirror of ``WebRTCPeer``. ICE as the controlling
/// agent (``ICEControllingAgent``) checks the endpoint's candidates; DTLS runs, in the role the answer gave us, only
/// with the address ICE selected; once the handshake is done and the endpoint's certificate is the one its answer
/// named, ``protection`` keys what we send and ``mediaAddress`` says where. The endpoint's RTCP (reports, NACK,
/// PLI/FIR) comes back as actions. A publisher not keyed within ``setupTimeout``, or whose consent ran out, is over.
///
/// Not thread-safe: one owner (its socket's event loop) drives it.
@_spi(SansIO) public final class WHIPPeer {
    public typealias Action = WebRTCPeer.Action

    public let offer: WHIPOffer
    public let answer: WHIPAnswer
    public private(set) var agent: ICEControllingAgent
    private let dtls: DTLSEndpoint
    private let created: ArrivalTime
    private var retransmitAt: ArrivalTime?
    private var receiver: SRTPReceiver?
    /// How long ICE and DTLS have to finish.
    public var setupTimeout: Duration = .seconds(15)
    /// SRTP for what we send, after the handshake.
    public private(set) var protection: SRTPSender?
    public private(set) var isClosed = false
    public private(set) var rtcpReceived = 0

    /// A peer for `offer` as the endpoint answered it, our ICE credentials and certificate.
    public init(
        offer: WHIPOffer, answer: WHIPAnswer, local: ICELiteAgent.Credentials, identity: DTLSIdentity,
        now: ArrivalTime
    ) throws(WebRTCError) {
        self.offer = offer
        self.answer = answer
        agent = ICEControllingAgent(local: local, remote: answer.credentials, candidates: answer.candidates)
        do {
            dtls = try DTLSEndpoint(identity: identity, role: answer.weAreDTLSClient ? .client : .server)
        } catch {
            throw WebRTCError("DTLS could not be set up: \(error.reason)")
        }
        created = now
    }

    /// Where media goes: the address ICE selected, once DTLS keyed it.
    public var mediaAddress: SocketAddress? { protection == nil ? nil : agent.selected }

    /// The first checks.
    public func start(now: ArrivalTime) -> [Action] { ice(agent.start(now: now), now: now) }

    /// A datagram from `address`.
    public func receive(_ datagram: [UInt8], from address: SocketAddress, now: ArrivalTime) -> [Action] {
        guard !isClosed, let first = datagram.first else { return [] }
        switch first {
        case 0...3:
            return ice(agent.receive(datagram, from: address, now: now), now: now)
        case 20...63:
            guard address == agent.selected else { return [] }
            return handshake(now: now) { () throws(DTLSError) in try self.dtls.receive(datagram) }
        case 128...191:
            guard address == agent.selected, let receiver else { return [] }
            guard let plain = try? receiver.unprotectRTCP(datagram), let packets = try? RTCPPacket.parseCompound(plain)
            else { return [] }
            rtcpReceived += 1
            return WebRTCPeer.feedback(packets, ssrcs: Set(offer.tracks.map(\.ssrc)))
        default:
            return []
        }
    }

    /// The agent's actions as the peer's; once ICE selected, the DTLS client sends its first flight.
    private func ice(_ actions: [ICEControllingAgent.Action], now: ArrivalTime) -> [Action] {
        var result: [Action] = []
        for action in actions {
            switch action {
            case .send(let bytes, let to): result.append(.send(bytes, to: to))
            case .failed(let reason): return result + close("ICE failed: \(reason)")
            case .selected:
                if dtls.role == .client {
                    result += handshake(now: now) { () throws(DTLSError) in try self.dtls.start() }
                }
            }
        }
        return result
    }

    /// A DTLS step: its datagrams to the selected address, the keys once it connects.
    private func handshake(now: ArrivalTime, _ step: () throws(DTLSError) -> [[UInt8]]) -> [Action] {
        guard let address = agent.selected else { return [] }
        let wasConnected = dtls.isConnected
        do {
            var actions = try step().map { Action.send($0, to: address) }
            retransmitAt = dtls.retransmissionDelay.map { now + $0 }
            if dtls.isConnected && !wasConnected { actions += keyed() }
            return actions
        } catch {
            return close("DTLS failed: \(error.reason)")
        }
    }

    /// The handshake finished: the endpoint's certificate must be the one its answer named.
    private func keyed() -> [Action] {
        switch dtls.srtp(expecting: answer.fingerprint, namedBy: "endpoint's answer") {
        case .success(let srtp): (protection, receiver) = (srtp.sender, srtp.receiver)
        case .failure(let error): return close(error.reason)
        }
        retransmitAt = nil
        return [.ready]
    }

    /// When ``wake(now:)`` next has something to do.
    public var nextWakeUp: ArrivalTime? {
        guard !isClosed else { return nil }
        let setup = protection == nil ? created + setupTimeout : nil
        return [setup, retransmitAt, agent.nextWakeUp].compactMap { $0 }.min()
    }

    /// Runs what is due: the setup deadline, DTLS retransmission, ICE checks and consent.
    public func wake(now: ArrivalTime) -> [Action] {
        guard !isClosed else { return [] }
        if protection == nil, now - created >= setupTimeout {
            return close(agent.selected == nil ? "no ICE check was answered in time" : "DTLS did not finish in time")
        }
        var actions: [Action] = []
        if let at = retransmitAt, now >= at {
            actions += handshake(now: now) { () throws(DTLSError) in try self.dtls.retransmit() }
        }
        return actions + ice(agent.wake(now: now), now: now)
    }

    private func close(_ reason: String) -> [Action] {
        isClosed = true
        protection = nil
        return [.closed(reason)]
    }
}
