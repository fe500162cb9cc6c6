import Audio
import RTP
import SDP
import Testing

/// Numbers a peer chooses (an SDP's clock rate and fmtp, a StreamMuxConfig's lengths, AU headers' index
/// deltas) that once overflowed the depacketizer's arithmetic and trapped: each is refused with a reason
/// or counted as malformed, never a crash.
@Suite struct HostileAudioParameterTests {
    /// Bits written most significant first, for configurations no sender here makes.
    struct Bits {
        var bits: [Bool] = []
        mutating func put(_ value: UInt64, _ count: Int) {
            for shift in (0..<count).reversed() { bits.append(value >> UInt64(shift) & 1 == 1) }
        }
        var bytes: [UInt8] {
            stride(from: 0, to: bits.count, by: 8).map { start in
                bits[start..<min(start + 8, bits.count)].enumerated().reduce(UInt8(0)) {
                    $0 | ($1.1 ? 0x80 >> UInt8($1.0) : 0)
                }
            }
        }
        var hex: String {
            bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
                .joined()
        }
    }

    /// A StreamMuxConfig of AAC LC, 48 kHz stereo, whose otherDataLenBits is 2^63 - 1 (0x7F, then 0xFF
    /// seven times): skipping it overflowed the bit position.
    static func muxConfigWithEndlessOtherData() -> Bits {
        var b = Bits()
        b.put(0, 1)  // audioMuxVersion
        b.put(1, 1)  // allStreamsSameTimeFraming
        b.put(0, 6)  // numSubFrames
        b.put(0, 4)  // numProgram
        b.put(0, 3)  // numLayer
        b.put(2, 5)  // AAC LC
        b.put(3, 4)  // 48 kHz
        b.put(2, 4)  // stereo
        b.put(0, 3)  // frameLengthFlag, dependsOnCoreCoder, extensionFlag
        b.put(0, 3)  // frameLengthType 0
        b.put(0xFF, 8)  // latmBufferFullness
        b.put(1, 1)  // otherDataPresent
        b.put(1, 1)
        b.put(0x7F, 8)
        for _ in 0..<6 {
            b.put(1, 1)
            b.put(0xFF, 8)
        }
        b.put(0, 1)
        b.put(0xFF, 8)
        b.put(0, 1)  // crcCheckPresent
        return b
    }

    @Test func aStreamMuxConfigWithEndlessOtherDataIsRefused() throws {
        let error = #expect(throws: AudioError.self) {
            try StreamMuxConfig(hex: Self.muxConfigWithEndlessOtherData().hex)
        }
        #expect(error?.reason.contains("other data") == true)
        // In band (cpresent=1): the element that carries it is malformed, and the depacketizer goes on.
        let format = AudioFormat(codec: .aacLATM, payloadType: 96, clockRate: 48000, channels: 2)
        var depacketizer = try AudioDepacketizer(format: format)
        var element = Bits()
        element.put(0, 1)  // useSameStreamMux 0: the config follows
        element.bits += Self.muxConfigWithEndlessOtherData().bits
        element.put(4, 8)  // a frame of 4 bytes
        element.put(0xDEAD_BEEF, 32)
        depacketizer.push(try packet(element.bytes, payloadType: 96))
        #expect(depacketizer.nextFrame() == nil)
        #expect(depacketizer.statistics.malformedPackets == 1)
    }

    /// A hex config of 10 kB is too long, not "not hexadecimal"; an odd one says so.
    @Test func aConfigTooLongSaysSo() {
        let long = String(repeating: "ab", count: 5000)
        let error = #expect(throws: AudioError.self) { try AudioSpecificConfig(hex: long) }
        #expect(error?.reason.contains("longer than 512 hex digits") == true)
        let odd = #expect(throws: AudioError.self) { try StreamMuxConfig(hex: "123") }
        #expect(odd?.reason.contains("odd number") == true)
        let bad = #expect(throws: AudioError.self) { try AudioSpecificConfig(hex: "zz") }
        #expect(bad?.reason.contains("not hexadecimal") == true)
    }

    /// `constantduration=2^62` and a clock of 2^32 - 1 Hz are not taken from an SDP; made by hand, the
    /// depacketizer refuses them with the bound.
    @Test func outOfRangeFormatNumbersAreRefused() throws {
        let sdp = """
            v=0\r
            o=- 1 1 IN IP4 10.0.0.1\r
            s=-\r
            t=0 0\r
            m=audio 0 RTP/AVP 96\r
            a=rtpmap:96 mpeg4-generic/48000/2\r
            a=fmtp:96 mode=AAC-hbr;config=1190;sizelength=13;indexlength=3;indexdeltalength=3;constantduration=4611686018427387904;constantsize=99999999999\r
            m=audio 0 RTP/AVP 0\r
            a=rtpmap:0 PCMU/4294967295\r
            m=audio 0 RTP/AVP 97\r
            a=rtpmap:97 L16/2147483648/2\r

            """
        let media = try SessionDescription(sdp).media
        let aac = try #require(media[0].audioFormat)
        #expect(aac.constantDuration == nil && aac.constantSize == nil)
        #expect(media[1].audioFormat == nil)  // not PCMU/8000 either: the rtpmap said otherwise
        #expect(media[2].audioFormat == nil)

        var format = aac
        format.constantDuration = 1 << 62
        #expect(
            (#expect(throws: AudioError.self) { try AudioDepacketizer(format: format) })?.reason.contains(
                "constantDuration") == true)
        let clock = AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 4_294_967_295)
        #expect(
            (#expect(throws: AudioError.self) { try AudioDepacketizer(format: clock) })?.reason.contains("clock rate")
                == true)
    }

    /// Index deltas of 32 bits in 60 AU headers, at a clock whose frames are long (an explicit sampling
    /// rate of 1 Hz): the units' times pass 64 bits. The packet is malformed; the next one is read.
    @Test func auHeaderTimesThatOverflowAreMalformed() throws {
        var format = AudioFormat(codec: .aac, payloadType: 97, clockRate: 10_000_000, channels: 1)
        (format.sizeLength, format.indexLength, format.indexDeltaLength) = (13, 32, 32)
        var config = Bits()
        config.put(2, 5)  // AAC LC
        config.put(15, 4)  // explicit rate
        config.put(1, 24)  // 1 Hz
        config.put(1, 4)  // mono
        config.put(0, 3)
        format.config = config.hex
        var depacketizer = try AudioDepacketizer(format: format)
        var headers = Bits()
        for _ in 0..<60 {
            headers.put(1, 13)
            headers.put(0xFFFF_FFFF, 32)
        }
        let section = [UInt8(headers.bits.count >> 8), UInt8(headers.bits.count & 0xFF)] + headers.bytes
        depacketizer.push(try packet(section + [UInt8](repeating: 7, count: 60), payloadType: 97, sequence: 1))
        #expect(depacketizer.nextFrame() == nil)
        #expect(depacketizer.statistics.malformedPackets == 1)
        var one = Bits()
        one.put(3, 13)
        one.put(0, 32)
        let good = [UInt8(0), UInt8(45)] + one.bytes + [1, 2, 3]
        depacketizer.push(try packet(good, payloadType: 97, sequence: 2))
        #expect(depacketizer.nextFrame().map { Array($0.bytes) } == [1, 2, 3])
    }

    func packet(_ payload: [UInt8], payloadType: UInt8, sequence: UInt16 = 1) throws -> RTPPacket {
        try RTPPacket(
            RTPPacketBuilder(
                marker: true, payloadType: payloadType, sequenceNumber: sequence, timestamp: 0, ssrc: 7,
                payload: payload
            ).bytes())
    }
}
