import Testing

@_spi(SansIO) @testable import RTP

@Suite struct RTCPPacketTests {
    let block = RTCPReportBlock(
        ssrc: 0xCAFE, fractionLost: 25, cumulativeLost: -3, extendedHighestSequence: 0x1_0005, jitter: 77,
        lastSenderReport: 0x1234_5678, delaySinceLastSenderReport: 65536)

    @Test func receiverReportWithCNAMEAndByeRoundTrips() throws {
        var builder = RTCPCompoundBuilder()
        builder.appendReceiverReport(RTCPReceiverReport(ssrc: 0xAB, reportBlocks: [block]))
        builder.appendCanonicalName("user@host", ssrc: 0xAB)
        builder.appendGoodbye(ssrcs: [0xAB], reason: "done")
        #expect(builder.bytes.count % 4 == 0)
        let packets = try RTCPPacket.parseCompound(builder.bytes)
        #expect(packets.count == 3)
        #expect(packets[0] == .receiverReport(RTCPReceiverReport(ssrc: 0xAB, reportBlocks: [block])))
        guard case .sourceDescription(let sdes) = packets[1] else {
            Issue.record("expected SDES, got \(packets[1])")
            return
        }
        #expect(sdes.chunks.first?.ssrc == 0xAB)
        #expect(sdes.chunks.first?.canonicalName == "user@host")
        #expect(packets[2] == .goodbye(RTCPGoodbye(ssrcs: [0xAB], reason: "done")))
    }

    @Test func senderReportRoundTrips() throws {
        let report = RTCPSenderReport(
            ssrc: 1, ntpTimestamp: 0xEEAA_BBCC_0000_8000, rtpTimestamp: 90000, packetCount: 10, octetCount: 1000,
            reportBlocks: [block, block])
        var builder = RTCPCompoundBuilder()
        builder.appendSenderReport(report)
        #expect(try RTCPPacket.parseCompound(builder.bytes) == [.senderReport(report)])
    }

    @Test func parsesApplicationAndFeedbackPacketsAsOpaque() throws {
        let app: [UInt8] = [0x85, 204, 0, 3, 0, 0, 0, 9, 0x41, 0x42, 0x43, 0x44, 1, 2, 3, 4]
        let pli: [UInt8] = [0x81, 206, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2]
        let packets = try RTCPPacket.parseCompound(app + pli)
        guard case .application(let a) = packets[0], case .feedback(let f) = packets[1] else {
            Issue.record("unexpected \(packets)")
            return
        }
        #expect(a.subtype == 5)
        #expect(a.name == Array("ABCD".utf8))
        #expect(Array(a.data) == [1, 2, 3, 4])
        #expect(f.packetType == 206)
        #expect(f.format == 1)
        #expect(f.senderSSRC == 1)
        #expect(f.mediaSSRC == 2)
    }

    @Test func stripsPaddingOfTheLastPacket() throws {
        // A receiver report with no blocks, then 4 bytes of padding (count in the last byte).
        let bytes: [UInt8] = [0xA0, 201, 0, 2, 0, 0, 0, 5, 0, 0, 0, 4]
        #expect(try RTCPPacket.parseCompound(bytes) == [.receiverReport(RTCPReceiverReport(ssrc: 5, reportBlocks: []))])
    }

    @Test func rejectsALengthPastTheEnd() {
        let bytes: [UInt8] = [0x80, 201, 0, 9, 0, 0, 0, 5]
        #expect(throws: RTPError(.rtcpLengthExceedsData, value: 40, limit: 8)) { try RTCPPacket.parseCompound(bytes) }
    }

    @Test func rejectsReportBlocksThatAreNotThere() {
        let bytes: [UInt8] = [0x82, 201, 0, 1, 0, 0, 0, 5]  // announces two blocks, holds none
        #expect(throws: RTPError(.rtcpBodyTooShort, value: 52, limit: 4)) { try RTCPPacket.parseCompound(bytes) }
    }

    @Test func rejectsTrailingBytesShorterThanAHeader() {
        let bytes: [UInt8] = [0x80, 201, 0, 1, 0, 0, 0, 5, 0x80, 201]
        #expect(throws: RTPError(.rtcpTruncated, value: 2)) { try RTCPPacket.parseCompound(bytes) }
    }

    @Test func rejectsAnSDESItemPastTheEnd() {
        let bytes: [UInt8] = [0x81, 202, 0, 2, 0, 0, 0, 5, 1, 40, 0x61, 0x62]
        let error = #expect(throws: RTPError.self) { try RTCPPacket.parseCompound(bytes) }
        #expect(error?.code == .rtcpBodyTooShort)
    }

    @Test func keepsSignedCumulativeLoss() throws {
        var builder = RTCPCompoundBuilder()
        var negative = block
        negative.cumulativeLost = -0x80_0000
        builder.appendReceiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: [negative]))
        guard case .receiverReport(let rr) = try RTCPPacket.parseCompound(builder.bytes)[0] else { return }
        #expect(rr.reportBlocks[0].cumulativeLost == -0x80_0000)
    }
}
