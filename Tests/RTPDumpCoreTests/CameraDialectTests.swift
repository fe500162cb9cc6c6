import MediaPipeline
import H26x
import RTP
import RTSPClient
import SDP
import Testing

/// Camera dialects at the SDP-to-depacketizer seam (issue 19): what the SDP declares is not always what
/// arrives, and key frames of 4K cameras are large.
@Suite struct CameraDialectTests {
    /// An IDR NAL unit of `size` bytes as FU-A fragments of `fragment` bytes, in RTP packets from sequence 1.
    static func fuA(size: Int, fragment: Int, timestamp: UInt32 = 0, payloadType: UInt8 = 96) -> [RTPPacket] {
        let nal = [UInt8(0x65)] + (0..<(size - 1)).map { UInt8(truncatingIfNeeded: $0 % 251 + 1) }
        let body = nal.dropFirst()
        var packets: [RTPPacket] = []
        var offset = body.startIndex
        while offset < body.endIndex {
            let end = min(offset + fragment, body.endIndex)
            let header = UInt8(offset == body.startIndex ? 0x80 : 0) | UInt8(end == body.endIndex ? 0x40 : 0) | 5
            packets.append(
                RTPPacketBuilder(
                    marker: end == body.endIndex, payloadType: payloadType,
                    sequenceNumber: UInt16(truncatingIfNeeded: packets.count + 1),
                    timestamp: timestamp, ssrc: 1, payload: [0x7C, header] + body[offset..<end]
                ).packet())
            offset = end
        }
        return packets
    }

    static func units(_ packets: [RTPPacket], sdp fmtp: String, payloadType: UInt8 = 96) throws -> [AccessUnit] {
        try depacketized(packets, sdp: fmtp, payloadType: payloadType).units
    }

    static func depacketized(_ packets: [RTPPacket], sdp fmtp: String, payloadType: UInt8 = 96) throws -> (
        units: [AccessUnit], depacketizer: Depacketizer
    ) {
        let pt = payloadType
        let description = try SessionDescription(
            "v=0\r\ns=x\r\nt=0 0\r\nm=video 0 RTP/AVP \(pt)\r\na=rtpmap:\(pt) H264/90000\r\na=fmtp:\(pt) \(fmtp)\r\n")
        let format = try #require(description.videoFormat())
        var pipeline = MediaPipeline(formats: [.video(format)])
        var units: [AccessUnit] = []
        for packet in packets {
            pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: ArrivalTime(nanoseconds: 0)))
            while let unit = pipeline.next()?.accessUnit { units.append(unit) }
        }
        pipeline.finish()
        while let unit = pipeline.next()?.accessUnit { units.append(unit) }
        return (units, try #require(pipeline.depacketizer(track: 0)))
    }

    /// packetization-mode=0 declared (or the fmtp empty, or ending in ';'), FU-A sent: taken as sent.
    @Test(arguments: [
        "packetization-mode=0", "", "packetization-mode=0;", "profile-level-id=42e01f;packetization-mode=0",
    ])
    func fuAIsTakenWhateverModeTheSDPDeclares(fmtp: String) throws {
        let units = try Self.units(Self.fuA(size: 3000, fragment: 1000), sdp: fmtp)
        #expect(units.count == 1)
        #expect(units.first?.isComplete == true)
        #expect(units.first?.nalUnits.first?.bytes.count == 3000)
    }

    /// A 4K60 key frame over 4 MiB (6 MiB here, in 1400-byte fragments) comes out whole.
    @Test func anAccessUnitOverFourMebibytesComesOutWhole() throws {
        let size = 6 << 20
        let units = try Self.units(Self.fuA(size: size, fragment: 1400), sdp: "packetization-mode=1")
        #expect(units.count == 1)
        #expect(units.first?.isComplete == true)
        #expect(units.first?.isKeyframe == true)
        #expect(units.first?.nalUnits.first?.bytes.count == size)
    }

    /// Geovision sends packets of payload type 50 after each IDR, in the video's sequence (its SDP gives
    /// the video type 105): they are skipped in their place, no loss, and the pictures come out whole.
    @Test func packetsOfAnotherPayloadTypeInTheStreamAreSkippedNotLost() throws {
        var packets = Self.fuA(size: 3000, fragment: 1000, payloadType: 105)  // sequence 1...3, an IDR
        packets.append(
            RTPPacketBuilder(payloadType: 50, sequenceNumber: 4, timestamp: 0, ssrc: 1, payload: [0xAA, 0xBB]).packet())
        packets.append(
            RTPPacketBuilder(
                marker: true, payloadType: 105, sequenceNumber: 5, timestamp: 3000, ssrc: 1,
                payload: [0x41, 0x9A, 0x11]
            ).packet())
        let (units, depacketizer) = try Self.depacketized(packets, sdp: "packetization-mode=1", payloadType: 105)
        #expect(units.map(\.nalUnits.count) == [1, 1])
        #expect(units.allSatisfy { $0.isComplete && $0.lostPackets == 0 })
        #expect(units.first?.nalUnits.first?.bytes.count == 3000)
        #expect(depacketizer.videoStatistics?.otherPayloadTypePackets == 1)
        #expect(depacketizer.videoStatistics?.malformedPackets == 0)
    }
}
