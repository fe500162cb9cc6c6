@_spi(SansIO) import DTLS
@_spi(SansIO) import ICE
import PacketCapture
@_spi(SansIO) import RTP
import SDP
import SRTP
import Testing
@_spi(SansIO) import WebRTC

/// A viewer's transport, sans I/O, against a viewer made of the same parts a browser has (a full agent's checks,
/// a DTLS client with its own certificate, named in its offer): checked, keyed, and its media readable; a viewer
/// that is not checked gets nothing, one that never finishes is closed.
@Suite struct WebRTCPeerTests {
    let viewerAddress = SocketAddress(address: .v4(0xC0A8_0105), port: 50_000)
    let t0 = ArrivalTime(nanoseconds: 1_000_000_000)
    let local = ICELiteAgent.Credentials(usernameFragment: "LoCa", password: "local-password-0123456789")

    /// Chromium's offer (or its offer that talks) with the fingerprint of `identity` (the test viewer's
    /// certificate).
    func offer(naming identity: DTLSIdentity, talks: Bool = false) throws -> WebRTCOffer {
        let sdp = talks ? WebRTCAnswerTests.chromiumTalking : WebRTCAnswerTests.chromium
        let text = sdp.split(separator: "\r\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("a=fingerprint:") ? "a=fingerprint:" + identity.sdpFingerprint : String(line)
        }.joined(separator: "\r\n")
        return try WebRTCOffer(text)
    }

    func check(_ offer: WebRTCOffer, id: UInt8 = 1) -> [UInt8] {
        STUNMessage(
            .request, transactionID: [UInt8](repeating: id, count: 12),
            attributes: [
                .username("\(local.usernameFragment):\(offer.usernameFragment)"),
                STUNAttribute(type: STUNAttribute.iceControlling, value: [1, 2, 3, 4, 5, 6, 7, 8]),
                STUNAttribute(type: STUNAttribute.useCandidate, value: []),
            ]
        ).serialized(integrityKey: Array(local.password.utf8))
    }

    func peer(_ offer: WebRTCOffer, server: DTLSIdentity) throws -> WebRTCPeer {
        let answer = try WebRTCAnswerTests.answer(offer, [.video(WebRTCAnswerTests.h264)])
        return try WebRTCPeer(offer: offer, answer: answer, local: local, identity: server, now: t0)
    }

    static func sent(_ actions: [WebRTCPeer.Action]) -> [[UInt8]] {
        actions.compactMap { if case .send(let bytes, _) = $0 { bytes } else { nil } }
    }

    /// Checks and keys `peer` with `viewer` (DTLS to and fro until the peer is ready): whether it got ready.
    func key(_ peer: WebRTCPeer, _ viewer: DTLSEndpoint, _ offer: WebRTCOffer) throws -> Bool {
        #expect(Self.sent(peer.receive(check(offer), from: viewerAddress, now: t0)).count == 1, "the check answered")
        var toPeer = try viewer.start()
        var ready = false
        for _ in 0..<5 where !ready {
            var toViewer: [[UInt8]] = []
            for datagram in toPeer {
                let actions = peer.receive(datagram, from: viewerAddress, now: t0)
                ready = ready || actions.contains { if case .ready = $0 { true } else { false } }
                toViewer += Self.sent(actions)
            }
            toPeer = try toViewer.flatMap { try viewer.receive($0) }
        }
        return ready
    }

    /// A viewer whose answer lets it talk: its RTP in the talk's payload type, protected with its key, comes out
    /// as packets for the talkback; RTP in another payload type, or not authenticated, does not; its RTCP is still
    /// read as RTCP (RTP and RTCP told apart on the one port).
    @Test func aTalkingViewersVoiceIsTakenAndOnlyItsVoice() throws {
        let viewerIdentity = try DTLSIdentity()
        let offer = try offer(naming: viewerIdentity, talks: true)
        let answer = try WebRTCAnswerTests.answer(
            offer, [.video(WebRTCAnswerTests.h264)], talkback: WebRTCAnswerTests.pcmu)
        let talk = try #require(answer.talk)
        let peer = try WebRTCPeer(offer: offer, answer: answer, local: local, identity: try DTLSIdentity(), now: t0)
        let viewer = try DTLSEndpoint(identity: viewerIdentity, role: .client)
        #expect(try key(peer, viewer, offer))
        let sender = try SRTPSender(key: try viewer.srtpKeys().local)
        func voice(_ payloadType: UInt8, _ sequenceNumber: UInt16) -> [UInt8] {
            RTPPacketBuilder(
                payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: 160 * UInt32(sequenceNumber),
                ssrc: 0x5151, payload: [UInt8](repeating: 0xFF, count: 160)
            ).bytes()
        }
        var taken: [RTPPacket] = []
        for number in 1...3 {
            let actions = peer.receive(
                try sender.protect(voice(talk.payloadType, UInt16(number))), from: viewerAddress, now: t0)
            taken += actions.compactMap { if case .talk(let packet) = $0 { packet } else { nil } }
        }
        #expect(taken.map(\.sequenceNumber) == [1, 2, 3] && taken.allSatisfy { $0.payload.count == 160 })
        _ = peer.receive(try sender.protect(voice(111, 4)), from: viewerAddress, now: t0)
        var forged = try sender.protect(voice(talk.payloadType, 5))
        forged[forged.count - 1] ^= 1
        _ = peer.receive(forged, from: viewerAddress, now: t0)
        #expect(peer.talkReceived == 3 && peer.talkRejected == 2)
        var report = RTCPCompoundBuilder()
        report.appendReceiverReport(RTCPReceiverReport(ssrc: 0x5151, reportBlocks: []))
        _ = peer.receive(try sender.protectRTCP(report.bytes), from: viewerAddress, now: t0)
        #expect(peer.rtcpReceived == 1 && peer.talkReceived == 3)
    }

    @Test func aCheckedViewerIsKeyedAndReadsWhatIsSent() throws {
        let viewerIdentity = try DTLSIdentity()
        let offer = try offer(naming: viewerIdentity)
        let peer = try peer(offer, server: try DTLSIdentity())
        let viewer = try DTLSEndpoint(identity: viewerIdentity, role: .client)
        #expect(peer.mediaAddress == nil)
        #expect(try key(peer, viewer, offer) && peer.mediaAddress == viewerAddress)
        let protection = try #require(peer.protection)
        let packet = RTPPacketBuilder(marker: true, payloadType: 102, timestamp: 3000, ssrc: 7, payload: [0x65, 1, 2])
            .bytes()
        let keys = try viewer.srtpKeys()
        #expect(try SRTPReceiver(key: keys.remote).unprotect(try protection.protect(packet)) == packet)
        // The viewer's RTCP, protected with its key, is read.
        var report = RTCPCompoundBuilder()
        report.appendReceiverReport(RTCPReceiverReport(ssrc: 9, reportBlocks: []))
        _ = peer.receive(try SRTPSender(key: keys.local).protectRTCP(report.bytes), from: viewerAddress, now: t0)
        #expect(peer.rtcpReceived == 1)
    }

    /// DTLS from an address no check came from is not answered; a viewer whose certificate is not the one its offer
    /// named is closed; one that never starts is closed at the setup timeout.
    @Test func unverifiedViewersGetNothing() throws {
        let viewerIdentity = try DTLSIdentity()
        let offer = try offer(naming: viewerIdentity)
        let peer = try peer(offer, server: try DTLSIdentity())
        let hello = try DTLSEndpoint(identity: viewerIdentity, role: .client).start()
        #expect(peer.receive(hello[0], from: viewerAddress, now: t0).isEmpty)
        // An impostor: checked (it saw the credentials) but with another certificate.
        _ = peer.receive(check(offer), from: viewerAddress, now: t0)
        let impostor = try DTLSEndpoint(identity: try DTLSIdentity(), role: .client)
        var toPeer = try impostor.start()
        var closed = false
        for _ in 0..<5 where !closed {
            var back: [[UInt8]] = []
            for datagram in toPeer {
                let actions = peer.receive(datagram, from: viewerAddress, now: t0)
                closed = closed || actions.contains { if case .closed = $0 { true } else { false } }
                back += Self.sent(actions)
            }
            toPeer = (try? back.flatMap { try impostor.receive($0) }) ?? []
        }
        #expect(closed && peer.protection == nil && peer.mediaAddress == nil)
        // Never started: closed at 15 s.
        let idle = try self.peer(offer, server: try DTLSIdentity())
        #expect(idle.nextWakeUp == t0 + .seconds(15))
        let actions = idle.wake(now: t0 + .seconds(15))
        guard case .closed(let reason)? = actions.first else {
            Issue.record("not closed: \(actions)")
            return
        }
        #expect(reason.contains("no ICE check"))
    }
}

/// What a viewer's RTCP asks for becomes actions: the packets a Generic NACK names, a keyframe for a PLI or a FIR,
/// its report blocks; feedback on streams it was not sent is left alone.
@Suite struct WebRTCFeedbackTests {
    @Test func nacksPacksAndReadsBack() throws {
        let numbers: [UInt16] = [65_530, 65_531, 65_535, 2, 3, 40]
        let nack = RTCPFeedback.negativeAcknowledgement(senderSSRC: 1, mediaSSRC: 2, sequenceNumbers: numbers)
        var builder = RTCPCompoundBuilder()
        builder.appendFeedback(nack)
        guard case .feedback(let read)? = try RTCPPacket.parseCompound(builder.bytes).first else {
            Issue.record("not feedback")
            return
        }
        #expect(read.negativelyAcknowledged == numbers)
        #expect(read.mediaSSRC == 2 && !read.requestsKeyframe)
        // Two PID + BLP pairs: 65530 with the four within 16 after it (across the wrap), and 40.
        #expect(nack.controlInformation.count == 8)
    }

    @Test func feedbackBecomesActions() throws {
        var builder = RTCPCompoundBuilder()
        let block = RTCPReportBlock(
            ssrc: 7, fractionLost: 64, cumulativeLost: 3, extendedHighestSequence: 100, jitter: 90,
            lastSenderReport: 0x1234_5678,
            delaySinceLastSenderReport: 65536)
        builder.appendReceiverReport(RTCPReceiverReport(ssrc: 99, reportBlocks: [block]))
        builder.appendFeedback(.negativeAcknowledgement(senderSSRC: 99, mediaSSRC: 7, sequenceNumbers: [10, 12]))
        builder.appendFeedback(.pictureLossIndication(senderSSRC: 99, mediaSSRC: 7))
        builder.appendFeedback(.pictureLossIndication(senderSSRC: 99, mediaSSRC: 8))  // not a stream we send
        builder.appendFeedback(
            RTCPFeedback(
                packetType: 206, format: 4, senderSSRC: 99, mediaSSRC: 0, controlInformation: [0, 0, 0, 7, 1, 0, 0, 0]))
        let actions = WebRTCPeer.feedback(try RTCPPacket.parseCompound(builder.bytes), ssrcs: [7])
        #expect(actions.count == 4)
        guard case .receiverReport(let read) = actions[0], case .retransmit(7, let numbers) = actions[1],
            case .keyframeRequested(7) = actions[2], case .keyframeRequested(7) = actions[3]
        else {
            Issue.record("\(actions)")
            return
        }
        #expect(read == block && numbers == [10, 12])
    }
}
