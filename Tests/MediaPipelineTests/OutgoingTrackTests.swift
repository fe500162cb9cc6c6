import H26x
import MediaPipeline
@_spi(SansIO) import RTP
import SDP
import SRTP
import Testing

/// A test's ``PacketBatch``: the packets, each whole.
struct PacketList: PacketBatch {
    var packets: [[UInt8]] = []

    mutating func append(header: RTPHeaderWords, payload: ArraySlice<UInt8>) {
        var packet: [UInt8] = []
        header.append(to: &packet)
        packets.append(packet + payload)
    }

    mutating func append(packet: ArraySlice<UInt8>) { packets.append(Array(packet)) }
}

/// The sending road's track, sans I/O: numbered, stamped, protected packets; its opening packet, reports and
/// BYE; RTP time that keeps rising.
@Suite struct OutgoingTrackTests {
    static let format = MediaFormat.video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1))
    static let now = WallClockTime(ntp: (WallClockTime.unixEpochOffset + 1_800_000_000) << 32)

    static func picture(_ index: Int, size: Int = 3000) -> MediaUnit {
        var slice = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: size)
        slice[0] = index == 0 ? 0x65 : 0x41
        let sets: [[UInt8]] =
            index == 0
            ? [[0x67, 0x42, 0xC0, 0x1E, 0xDA, 0x02, 0x80, 0xBF, 0xE5, 0xC0, 0x44], [0x68, 0xCE, 0x3C, 0x80]] : []
        return .video(AccessUnit(codec: .h264, timestamp: UInt64(index) * 3000, nalUnits: sets + [slice]))
    }

    /// Packets numbered one after another from the sender's first, stamped at the unit's time plus the random
    /// offset, that a pipeline takes back apart into the units.
    @Test func packetsAreNumberedStampedAndDepacketizeBack() throws {
        let sender = RTPSender(
            payloadType: 96, clockRate: 90_000, ssrc: 7, firstSequenceNumber: 65_530, timestampOffset: 100)
        var track = try OutgoingTrack(format: Self.format, maxPayloadSize: 1000, sender: sender)
        var batch = PacketList()
        for index in 0..<5 { #expect(track.send(Self.picture(index), capturedAt: Self.now, into: &batch) > 1) }
        let packets = try batch.packets.map { try RTPPacket($0[...]) }
        let numbers: [UInt16] = packets.indices.map { UInt16(truncatingIfNeeded: 65_530 + $0) }
        #expect(packets.map(\.sequenceNumber) == numbers)
        let times: Set<UInt32> = Set((0..<5).map { UInt32(100 + $0 * 3000) })
        #expect(Set(packets.map(\.timestamp)) == times)
        #expect(packets.allSatisfy { $0.ssrc == 7 && $0.payloadType == 96 })
        let units = try PacketizerTests.units(from: batch.packets, format: Self.format)
        #expect(units.count == 5)
        #expect(track.sender.packetCount == UInt32(packets.count))
    }

    /// Keyed with SRTP, every packet and report is protected: libsrtp's receiver of the same key takes them back
    /// to the plain packets, byte for byte.
    @Test func aKeyedTrackSendsWhatTheReceiverUnprotects() throws {
        let key = SRTPKey.random(suite: .aesCM128HMACSHA1_80)
        let sender = RTPSender(payloadType: 96, clockRate: 90_000, ssrc: 9, firstSequenceNumber: 1, timestampOffset: 0)
        var plain = try OutgoingTrack(format: Self.format, maxPayloadSize: 1000, sender: sender)
        var keyed = try OutgoingTrack(
            format: Self.format, maxPayloadSize: 1000, sender: sender, protection: try SRTPSender(key: key))
        var (plainBatch, keyedBatch) = (PacketList(), PacketList())
        for index in 0..<3 {
            plain.send(Self.picture(index), capturedAt: Self.now, into: &plainBatch)
            keyed.send(Self.picture(index), capturedAt: Self.now, into: &keyedBatch)
        }
        let receiver = try SRTPReceiver(key: key)
        #expect(try keyedBatch.packets.map { try receiver.unprotect($0) } == plainBatch.packets)
        // Each carries HMAC-SHA1-80's 10-byte tag.
        #expect(zip(keyedBatch.packets, plainBatch.packets).allSatisfy { $0.count == $1.count + 10 })
        let report = try #require(keyed.report(at: Self.now, canonicalName: "cam"))
        #expect(try receiver.unprotectRTCP(report) == plain.report(at: Self.now, canonicalName: "cam"))
    }

    /// A header extension goes in the unit's first packet alone (its X bit set), between the header and the
    /// payload; the payloads still make the unit, plain and protected.
    @Test func aHeaderExtensionGoesInTheUnitsFirstPacket() throws {
        let key = SRTPKey.random(suite: .aesCM128HMACSHA1_80)
        let sender = RTPSender(payloadType: 96, clockRate: 90_000, ssrc: 5, firstSequenceNumber: 1, timestampOffset: 0)
        let replay = ONVIFReplayExtension(
            recordedTime: Self.now, isCleanPoint: true, isEnd: false, isDiscontinuity: true, cseq: 3)
        var plain = try OutgoingTrack(format: Self.format, maxPayloadSize: 1000, sender: sender)
        var keyed = try OutgoingTrack(
            format: Self.format, maxPayloadSize: 1000, sender: sender, protection: try SRTPSender(key: key))
        var (plainBatch, keyedBatch) = (PacketList(), PacketList())
        plain.send(Self.picture(0), capturedAt: Self.now, headerExtension: replay.headerExtension, into: &plainBatch)
        keyed.send(Self.picture(0), capturedAt: Self.now, headerExtension: replay.headerExtension, into: &keyedBatch)
        let receiver = try SRTPReceiver(key: key)
        #expect(try keyedBatch.packets.map { try receiver.unprotect($0) } == plainBatch.packets)
        let packets = try plainBatch.packets.map { try RTPPacket($0[...]) }
        #expect(packets.count > 2)
        #expect(packets.map { ONVIFReplayExtension($0) } == [replay] + Array(repeating: nil, count: packets.count - 1))
        #expect(packets.map(\.hasExtension) == [true] + Array(repeating: false, count: packets.count - 1))
        let units = try PacketizerTests.units(from: plainBatch.packets, format: Self.format)
        #expect(units.count == 1 && units.first?.accessUnit?.nalUnits.count == 3)
    }

    /// The opening packet is a header alone, numbered before the media; the BYE carries the last report.
    @Test func theOpeningPacketAndTheGoodbye() throws {
        let sender = RTPSender(
            payloadType: 96, clockRate: 90_000, ssrc: 11, firstSequenceNumber: 40, timestampOffset: 0)
        var track = try OutgoingTrack(format: Self.format, sender: sender)
        var batch = PacketList()
        track.openingPacket(capturedAt: Self.now, into: &batch)
        track.send(Self.picture(0), capturedAt: Self.now, into: &batch)
        let opening = try RTPPacket(batch.packets[0][...])
        #expect(batch.packets[0].count == 12 && opening.sequenceNumber == 40 && opening.payload.isEmpty)
        #expect(try RTPPacket(batch.packets[1][...]).sequenceNumber == 41)
        let goodbye = try RTCPPacket.parseCompound(try #require(track.goodbye(at: Self.now, reason: "end"))[...])
        #expect(goodbye.count == 2)
        if case .senderReport(let report) = goodbye.first {
            #expect(report.ssrc == 11)
        } else {
            Issue.record("no report first")
        }
    }

    /// A unit whose timestamp goes back more than a second (a file played again) goes on one step after the
    /// latest: RTP time keeps rising; the first unit is at 0. B-frames' smaller steps back pass as they are.
    @Test func rtpTimeKeepsRisingAndBFramesKeepTheirOrder() throws {
        let sender = RTPSender(payloadType: 96, clockRate: 90_000, ssrc: 3, firstSequenceNumber: 0, timestampOffset: 0)
        var track = try OutgoingTrack(format: Self.format, sender: sender)
        var batch = PacketList()
        // 100..102 (a file's end), then 0 and 1 (played again), then 4 and 2 (a B-frame's step back).
        for index in [100, 101, 102, 0, 1, 4, 2] {
            track.send(Self.picture(index, size: 100), capturedAt: Self.now, into: &batch)
        }
        let times = try batch.packets.map { try RTPPacket($0[...]).timestamp }
        #expect(times.uniqued() == [0, 3000, 6000, 9000, 12_000, 21_000, 15_000])
    }
}

extension Array where Element: Hashable {
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
