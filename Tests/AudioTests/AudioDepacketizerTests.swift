import Audio
import RTP
import SDP
import Testing

/// What the captures of real senders do not show: an AAC unit fragmented over packets (RFC 3640 section
/// 3.2.3), interleaving (section 3.2.3.2), LATM with its configuration in band and an element over
/// packets (RFC 6416), and payloads that do not parse. Built from the RFCs' layouts.
@Suite struct AudioDepacketizerTests {
    /// AAC-hbr at 48 kHz, stereo LC (AudioSpecificConfig 1190).
    static var aac: AudioFormat {
        var format = AudioFormat(codec: .aac, payloadType: 97, clockRate: 48000, channels: 2)
        (format.sizeLength, format.indexLength, format.indexDeltaLength) = (13, 3, 3)
        format.config = "1190"
        return format
    }

    static func packet(_ payload: [UInt8], sequence: UInt16, timestamp: UInt32, marker: Bool = true, pt: UInt8 = 97)
        throws -> RTPPacket
    {
        try RTPPacket(
            RTPPacketBuilder(
                marker: marker, payloadType: pt, sequenceNumber: sequence, timestamp: timestamp, ssrc: 7,
                payload: payload
            ).bytes())
    }

    /// An AU-headers section of AAC-hbr (13-bit size, 3-bit index or index delta), then the units.
    static func hbr(_ units: [(size: Int, index: Int)], data: [UInt8]) -> [UInt8] {
        var bits: [Bool] = []
        for unit in units {
            bits += (0..<13).reversed().map { unit.size >> $0 & 1 == 1 }
            bits += (0..<3).reversed().map { unit.index >> $0 & 1 == 1 }
        }
        var bytes: [UInt8] = [UInt8(bits.count >> 8), UInt8(bits.count & 0xFF)]
        for start in stride(from: 0, to: bits.count, by: 8) {
            bytes.append(
                bits[start..<min(start + 8, bits.count)].enumerated().reduce(0) { $0 | ($1.1 ? 0x80 >> $1.0 : 0) })
        }
        return bytes + data
    }

    static func drain(_ d: inout AudioDepacketizer) -> [AudioFrame] {
        var frames: [AudioFrame] = []
        while let frame = d.nextFrame() { frames.append(frame) }
        return frames
    }

    @Test func anAccessUnitFragmentedOverPacketsIsPutTogetherOnce() throws {
        var d = try AudioDepacketizer(format: Self.aac)
        let unit = (0..<3000).map { UInt8($0 % 251) }
        d.push(
            try Self.packet(Self.hbr([(3000, 0)], data: Array(unit[..<1400])), sequence: 1, timestamp: 0, marker: false)
        )
        d.push(
            try Self.packet(
                Self.hbr([(3000, 0)], data: Array(unit[1400..<2800])), sequence: 2, timestamp: 0, marker: false))
        #expect(Self.drain(&d).isEmpty)
        d.push(try Self.packet(Self.hbr([(3000, 0)], data: Array(unit[2800...])), sequence: 3, timestamp: 0))
        let frames = Self.drain(&d)
        #expect(frames.map { Array($0.bytes) } == [unit])
        #expect(frames.first?.sampleCount == 1024)
        // A lost middle fragment: the unit is left out, never spliced; the next unit carries the loss.
        d.push(
            try Self.packet(
                Self.hbr([(3000, 0)], data: Array(unit[..<1400])), sequence: 4, timestamp: 1024, marker: false))
        d.noteLoss(1)
        d.push(try Self.packet(Self.hbr([(3000, 0)], data: Array(unit[2800...])), sequence: 6, timestamp: 1024))
        d.push(try Self.packet(Self.hbr([(4, 0)], data: [1, 2, 3, 4]), sequence: 7, timestamp: 2048))
        let after = Self.drain(&d)
        #expect(after.map { Array($0.bytes) } == [[1, 2, 3, 4]])
        #expect(after.first?.lostPacketsBefore == 1)
        #expect(d.statistics.droppedFrames == 1)
    }

    /// Several units per packet take the packet's timestamp, then one frame (1024 ticks) more each.
    @Test func severalUnitsInAPacketAreTimedAFrameApart() throws {
        var d = try AudioDepacketizer(format: Self.aac)
        d.push(
            try Self.packet(
                Self.hbr([(2, 0), (1, 0), (3, 0)], data: [1, 1, 2, 3, 3, 3]), sequence: 1, timestamp: 5000))
        let frames = Self.drain(&d)
        #expect(frames.map { Array($0.bytes) } == [[1, 1], [2], [3, 3, 3]])
        #expect(frames.map { $0.timestamp - frames[0].timestamp } == [0, 1024, 2048])
        #expect(frames.map(\.rtpTimestamp) == [5000, 6024, 7048])
    }

    /// Interleaved (RFC 3640 section 3.2.3.2): units 0, 3, 6 in one packet, 1, 4, 7 in the next, 2, 5, 8 in
    /// the last (an index delta of 2: two units between each); they come out in time order.
    @Test func interleavedUnitsComeOutInTimeOrder() throws {
        var d = try AudioDepacketizer(format: Self.aac)
        for (packet, first) in [0, 1, 2].enumerated() {
            let values = [first, first + 3, first + 6].map(UInt8.init)
            d.push(
                try Self.packet(
                    Self.hbr([(1, first), (1, 2), (1, 2)], data: values), sequence: UInt16(packet + 1),
                    timestamp: UInt32(first * 1024)))
        }
        d.flush()
        let frames = Self.drain(&d)
        #expect(frames.map { $0.bytes.first ?? 255 } == Array(0...8))
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1.timestamp - $0.timestamp == 1024 })
    }

    /// LATM with the StreamMuxConfig in band (`cpresent=1`): the first element carries it (useSameStreamMux
    /// 0), the next ones reuse it; the frames are not byte-aligned there and are copied out. An element may
    /// span packets (marker on its last).
    @Test func latmInBandConfigurationAndAnElementOverPackets() throws {
        var format = AudioFormat(codec: .aacLATM, payloadType: 96, clockRate: 44100, channels: 1)
        format.muxConfigPresent = true
        var d = try AudioDepacketizer(format: format)
        #expect(d.audioSpecificConfig == nil)  // nothing known until the first element
        // useSameStreamMux 0, then StreamMuxConfig 40 00 24 10 3f c0 (LC, 44100, mono, frameLengthType 0,
        // fullness 0xff, no other data, no CRC): 44 bits; then PayloadLengthInfo 3 and the frame AA BB CC.
        var bits = BitString()
        bits.append(0, 1)
        bits.append(bytes: [0x40, 0x00, 0x24, 0x10], count: 32)
        bits.append(0x3F, 8)
        bits.append(0b1100, 4)
        bits.append(3, 8)
        bits.append(bytes: [0xAA, 0xBB, 0xCC], count: 24)
        d.push(try Self.packet(bits.bytes, sequence: 1, timestamp: 0, pt: 96))
        let first = Self.drain(&d)
        #expect(first.map { Array($0.bytes) } == [[0xAA, 0xBB, 0xCC]])
        #expect(d.audioSpecificConfig?.samplingRate == 44100 && d.audioSpecificConfig?.channelConfiguration == 1)
        // useSameStreamMux 1, then a 300-byte frame (PayloadLengthInfo ff 2d), over two packets.
        var same = BitString()
        same.append(1, 1)
        same.append(bytes: [0xFF, 0x2D], count: 16)
        let frame = (0..<300).map { UInt8($0 & 0xFF) }
        same.append(bytes: frame, count: 2400)
        let whole = same.bytes
        d.push(try Self.packet(Array(whole[..<150]), sequence: 2, timestamp: 1024, marker: false, pt: 96))
        #expect(Self.drain(&d).isEmpty)
        d.push(try Self.packet(Array(whole[150...]), sequence: 3, timestamp: 1024, pt: 96))
        #expect(Self.drain(&d).map { Array($0.bytes) } == [frame])
    }

    /// Payloads that do not parse are counted and skipped; the stream goes on.
    @Test func malformedPayloadsAreCountedAndSkipped() throws {
        var d = try AudioDepacketizer(format: Self.aac)
        d.push(try Self.packet([0x00], sequence: 1, timestamp: 0))  // no AU-headers-length
        d.push(try Self.packet([0x00, 0x10, 0xFF], sequence: 2, timestamp: 0))  // headers past the payload
        d.push(try Self.packet(Self.hbr([(9, 0), (9, 0)], data: [1, 2, 3]), sequence: 3, timestamp: 0))  // sizes past it
        d.push(try Self.packet([0x00, 0x00], sequence: 4, timestamp: 0))  // no header at all
        d.push(try Self.packet(Self.hbr([(1, 0)], data: [9]), sequence: 5, timestamp: 1024, pt: 96))  // another type
        d.push(try Self.packet(Self.hbr([(1, 0)], data: [7]), sequence: 6, timestamp: 2048))
        #expect(Self.drain(&d).map { Array($0.bytes) } == [[7]])
        #expect(d.statistics.malformedPackets == 4)
        #expect(d.statistics.otherPayloadTypePackets == 1)
        var opus = try AudioDepacketizer(
            format: AudioFormat(codec: .opus, payloadType: 111, clockRate: 48000, channels: 2))
        opus.push(try Self.packet([], sequence: 1, timestamp: 0, pt: 111))  // empty
        opus.push(try Self.packet([0x03], sequence: 2, timestamp: 0, pt: 111))  // code 3 without its count
        opus.push(try Self.packet([0x03, 0x3F], sequence: 3, timestamp: 0, pt: 111))  // 63 frames: 630 ms
        #expect(Self.drain(&opus).isEmpty)
        #expect(opus.statistics.malformedPackets == 3)
    }

    /// Opus durations from the TOC byte (RFC 6716 section 3.1), at 48 kHz.
    static let opusTOCs: [([UInt8], Int)] = [
        ([0x00], 480),  // SILK 10 ms, one frame
        ([0x09], 1920),  // SILK 20 ms, two frames (code 1)
        ([0x78], 960),  // Hybrid (config 15) 20 ms
        ([0xF8], 960),  // CELT 20 ms
        ([0x83, 0x03], 360),  // CELT 2.5 ms, three frames (code 3)
    ]

    @Test(arguments: opusTOCs)
    func opusDurationsComeFromTheTOC(payload: [UInt8], samples: Int) throws {
        var d = try AudioDepacketizer(format: AudioFormat(codec: .opus, payloadType: 111, clockRate: 48000))
        d.push(try Self.packet(payload + [0, 0], sequence: 1, timestamp: 0, pt: 111))
        #expect(Self.drain(&d).first?.sampleCount == samples)
    }

    /// A configuration that cannot be read is an error where the format is given.
    @Test func unreadableConfigurationsAreErrors() {
        var missing = Self.aac
        missing.config = nil
        #expect(throws: AudioError.self) { try AudioDepacketizer(format: missing) }
        var odd = Self.aac
        odd.config = "11x"
        #expect(
            (#expect(throws: AudioError.self) { try AudioDepacketizer(format: odd) })?.reason.contains("hexadecimal")
                == true)
        var reserved = Self.aac
        reserved.config = "1690"  // AAC LC, sampling frequency index 13: reserved
        #expect(throws: AudioError.self) { try AudioDepacketizer(format: reserved) }
        var latm = AudioFormat(codec: .aacLATM, payloadType: 96, clockRate: 44100)
        latm.muxConfigPresent = false
        #expect(throws: AudioError.self) { try AudioDepacketizer(format: latm) }
        latm.config = "C0"  // audioMuxVersion 1
        #expect(
            (#expect(throws: AudioError.self) { try AudioDepacketizer(format: latm) })?.reason.contains(
                "audioMuxVersion 1") == true)
    }
}

/// Bits written most significant first, for payloads that are not byte-aligned.
struct BitString {
    private(set) var bits: [Bool] = []

    mutating func append(_ value: UInt32, _ count: Int) {
        bits += (0..<count).reversed().map { value >> UInt32($0) & 1 == 1 }
    }

    mutating func append(bytes: [UInt8], count: Int) {
        for byte in bytes { append(UInt32(byte), 8) }
        bits.removeLast(bytes.count * 8 - count)
    }

    var bytes: [UInt8] {
        stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<min(start + 8, bits.count)].enumerated().reduce(UInt8(0)) {
                $0 | ($1.1 ? 0x80 >> UInt8($1.0) : 0)
            }
        }
    }
}
