@_spi(SansIO) import DTLS
@_spi(SansIO) import ICE
import PacketCapture
@_spi(SansIO) import RTP
import SRTP

/// One browser viewer's transport, sans I/O: its datagrams in (STUN, DTLS, SRTCP, told apart by their first
/// byte as RFC 7983 has it), what to send out. ICE-lite answers its checks; DTLS (we are the passive side)
/// runs only with an address ICE checked; once the handshake is done and the viewer's certificate is the one
/// its offer named, ``protection`` keys what we send and ``mediaAddress`` says where. A viewer that has not
/// finished in ``setupTimeout`` (never checked, never finished DTLS) or has lost ICE consent is over
/// (``Action/closed(_:)``).
///
/// Not thread-safe: one owner (the server's UDP event loop) drives it.
@_spi(SansIO) public final class WebRTCPeer {
    /// What the owner does.
    public enum Action: Sendable {
        /// Send these bytes to this address.
        case send([UInt8], to: SocketAddress)
        /// Media may flow now: to ``mediaAddress``, protected by ``protection``.
        case ready
        /// The viewer is gone (the reason): stop sending and forget it.
        case closed(String)
        /// The viewer lost these packets of the stream `ssrc` (a Generic NACK): send them again.
        case retransmit(ssrc: UInt32, sequenceNumbers: [UInt16])
        /// The viewer asks for a keyframe of the stream `ssrc` (PLI or FIR).
        case keyframeRequested(ssrc: UInt32)
        /// The viewer's report on the stream the block names (loss, jitter, the round trip's LSR and DLSR).
        case receiverReport(RTCPReportBlock)
        /// An RTP packet of the viewer's voice (``WebRTCAnswer/talk``), unprotected: for the talkback.
        case talk(RTPPacket)
    }

    public let answer: WebRTCAnswer
    public private(set) var agent: ICELiteAgent
    private let dtls: DTLSEndpoint
    private let expectedFingerprint: [UInt8]
    private let created: ArrivalTime
    /// When DTLS next wants its retransmission timer run.
    private var retransmitAt: ArrivalTime?
    /// How long a viewer has to be checked and keyed.
    public var setupTimeout: Duration = .seconds(15)
    /// SRTP for what we send, after the handshake.
    public private(set) var protection: SRTPSender?
    private var receiver: SRTPReceiver?
    public private(set) var isClosed = false
    /// RTCP packets read from the viewer (its receiver reports, feedback) and those that did not authenticate.
    public private(set) var rtcpReceived = 0
    public private(set) var rtcpRejected = 0
    /// RTP packets of the viewer's voice taken, and those refused (not authenticated, not the talk's payload type,
    /// or from a viewer the answer did not let talk).
    public private(set) var talkReceived = 0
    public private(set) var talkRejected = 0

    public init(
        offer: WebRTCOffer, answer: WebRTCAnswer, local: ICELiteAgent.Credentials, identity: DTLSIdentity,
        now: ArrivalTime
    ) throws(WebRTCError) {
        self.answer = answer
        agent = ICELiteAgent(local: local, remoteUsernameFragment: offer.usernameFragment)
        do {
            dtls = try DTLSEndpoint(identity: identity, role: .server)
        } catch {
            throw WebRTCError("DTLS could not be set up: \(error.reason)")
        }
        expectedFingerprint = offer.fingerprint
        created = now
    }

    /// Where media goes: the address ICE selected, once DTLS keyed it; nil before, and after consent was lost.
    public var mediaAddress: SocketAddress? { protection == nil ? nil : agent.selected }

    /// A datagram from `address`.
    public func receive(_ datagram: [UInt8], from address: SocketAddress, now: ArrivalTime) -> [Action] {
        guard !isClosed, let first = datagram.first else { return [] }
        switch first {
        case 0...3:
            return agent.receive(datagram, from: address, now: now).compactMap { action in
                switch action {
                case .send(let bytes, let to): .send(bytes, to: to)
                case .selected: protection == nil ? nil : .ready
                case .consentLost: nil
                }
            }
        case 20...63:
            // DTLS only with an address ICE checked: nothing is answered to one it did not.
            guard agent.isChecked(address) else { return [] }
            let wasConnected = dtls.isConnected
            do {
                var actions = try dtls.receive(datagram).map { Action.send($0, to: address) }
                retransmitAt = dtls.retransmissionDelay.map { now + $0 }
                if dtls.isConnected && !wasConnected { actions += keyed() }
                return actions
            } catch {
                return close("DTLS failed: \(error.reason)")
            }
        case 128...191:
            guard agent.isChecked(address), let receiver else { return [] }
            // RTP and RTCP on one port (RFC 5761 section 4): RTCP's packet types read as payload types 64-95.
            if datagram.count > 1, !(64...95).contains(datagram[1] & 0x7F) { return talk(datagram, receiver) }
            guard let plain = try? receiver.unprotectRTCP(datagram), let packets = try? RTCPPacket.parseCompound(plain)
            else {
                rtcpRejected += 1
                return []
            }
            rtcpReceived += 1
            return Self.feedback(packets, ssrcs: Set(answer.tracks.map(\.ssrc)))
        default:
            return []
        }
    }

    /// The viewer's voice, when the answer lets it talk.
    private func talk(_ datagram: [UInt8], _ receiver: SRTPReceiver) -> [Action] {
        guard let talk = answer.talk, let plain = try? receiver.unprotect(datagram),
            let packet = try? RTPPacket(plain), packet.payloadType == talk.payloadType
        else {
            talkRejected += 1
            return []
        }
        talkReceived += 1
        return [.talk(packet)]
    }

    /// What a viewer's RTCP asks of the streams we send it (others' SSRCs are left alone).
    package static func feedback(_ packets: [RTCPPacket], ssrcs: Set<UInt32>) -> [Action] {
        var actions: [Action] = []
        for packet in packets {
            switch packet {
            case .receiverReport(let report):
                actions += report.reportBlocks.filter { ssrcs.contains($0.ssrc) }.map { .receiverReport($0) }
            case .senderReport(let report):
                actions += report.reportBlocks.filter { ssrcs.contains($0.ssrc) }.map { .receiverReport($0) }
            case .feedback(let feedback):
                if let numbers = feedback.negativelyAcknowledged, ssrcs.contains(feedback.mediaSSRC), !numbers.isEmpty {
                    actions.append(.retransmit(ssrc: feedback.mediaSSRC, sequenceNumbers: numbers))
                } else if feedback.requestsKeyframe {
                    // A FIR names its stream in its control information; a PLI in its media SSRC.
                    let information = feedback.controlInformation
                    let target =
                        feedback.format == 4 && information.count >= 4
                        ? RTPPacket.readUInt32(information, at: information.startIndex) : feedback.mediaSSRC
                    if ssrcs.contains(target) { actions.append(.keyframeRequested(ssrc: target)) }
                }
            default:
                continue
            }
        }
        return actions
    }

    /// The handshake finished: the viewer's certificate must be the one its offer named.
    private func keyed() -> [Action] {
        switch dtls.srtp(expecting: expectedFingerprint, namedBy: "viewer's offer") {
        case .success(let srtp): (protection, receiver) = (srtp.sender, srtp.receiver)
        case .failure(let error): return close(error.reason)
        }
        retransmitAt = nil
        return agent.selected == nil ? [] : [.ready]
    }

    /// When ``wake(now:)`` next has something to do.
    public var nextWakeUp: ArrivalTime? {
        guard !isClosed else { return nil }
        let setup = protection == nil ? created + setupTimeout : nil
        return [setup, retransmitAt, agent.nextWakeUp].compactMap { $0 }.min()
    }

    /// Runs what is due: the setup deadline, DTLS retransmission, ICE consent.
    public func wake(now: ArrivalTime) -> [Action] {
        guard !isClosed else { return [] }
        if protection == nil, now - created >= setupTimeout {
            return close(agent.selected == nil ? "no ICE check succeeded in time" : "DTLS did not finish in time")
        }
        var actions: [Action] = []
        if let at = retransmitAt, now >= at, let address = agent.selected {
            do {
                actions += try dtls.retransmit().map { .send($0, to: address) }
                retransmitAt = dtls.retransmissionDelay.map { now + $0 }
            } catch {
                return close("DTLS failed: \(error.reason)")
            }
        }
        let lost = agent.expire(now: now)
        if !lost.isEmpty, agent.selected == nil {
            return close("the viewer stopped answering (ICE consent expired)")
        }
        return actions
    }

    private func close(_ reason: String) -> [Action] {
        isClosed = true
        protection = nil
        return [.closed(reason)]
    }
}
