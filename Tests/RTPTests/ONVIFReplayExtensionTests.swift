import Testing

@testable import RTP

/// The ONVIF replay extension (0xABAC) read as the ONVIF Streaming Specification lays it out: 64-bit NTP
/// time, then a byte of flags (C 0x80, E 0x40, D 0x20), the CSeq byte and two of padding. (That
/// GStreamer's `rtponviftimestamp` writes what this reads: `RealServerPlaybackTests`.)
@Suite struct ONVIFReplayExtensionTests {
    static func packet(profile: UInt16 = 0xABAC, data: [UInt8]) throws -> RTPPacket {
        try RTPPacket(RTPPacketBuilder(headerExtension: (profile: profile, data: data), payload: [1]).bytes())
    }

    @Test func readsTheTimeAndTheFlags() throws {
        let ntp: UInt64 = 0xED00_0000_8000_0000  // some second and a half
        let bytes = (0..<8).map { UInt8(truncatingIfNeeded: ntp >> (56 - 8 * $0)) }
        let clean = try #require(ONVIFReplayExtension(try Self.packet(data: bytes + [0x80, 7, 0, 0])))
        #expect(clean.recordedTime.ntp == ntp)
        #expect(clean.isCleanPoint && !clean.isEnd && !clean.isDiscontinuity)
        #expect(clean.cseq == 7)
        let other = try #require(ONVIFReplayExtension(try Self.packet(data: bytes + [0x60, 0, 0, 0])))
        #expect(!other.isCleanPoint && other.isEnd && other.isDiscontinuity)
    }

    /// What a server writes reads back as it was, in a packet: the time, each flag alone, the CSeq byte.
    @Test func theWrittenExtensionReadsBack() throws {
        let time = WallClockTime(ntp: 0xED00_0001_4000_0000)
        for flags in [(true, false, false), (false, true, false), (false, false, true)] {
            let written = ONVIFReplayExtension(
                recordedTime: time, isCleanPoint: flags.0, isEnd: flags.1, isDiscontinuity: flags.2, cseq: 201)
            let header = written.headerExtension
            #expect(header.profile == 0xABAC && header.data.count == 12)
            let packet = try Self.packet(data: Array(header.data))
            #expect(ONVIFReplayExtension(packet) == written)
        }
    }

    @Test func anotherProfileOrAShortExtensionIsNone() throws {
        #expect(ONVIFReplayExtension(try Self.packet(profile: 0xBEDE, data: Array(repeating: 0, count: 12))) == nil)
        #expect(ONVIFReplayExtension(try Self.packet(data: Array(repeating: 0, count: 8))) == nil)
        #expect(ONVIFReplayExtension(try RTPPacket(RTPPacketBuilder(payload: [1]).bytes())) == nil)
    }
}
