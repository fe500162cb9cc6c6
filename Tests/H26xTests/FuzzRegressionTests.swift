import RTP
import Testing

@testable import H26x

/// Inputs the fuzzers (Fuzz/) crashed on, replayed the way the harnesses fed them.
@Suite struct FuzzRegressionTests {
    /// FuzzSPS: an H.265 SPS whose bit_depth_luma_minus8 is near 2^32; building the error message
    /// overflowed UInt32.
    static let hugeBitDepthSPS: [UInt8] = [
        0x77, 0x4d, 0x2c, 0x77, 0x77, 0x4d, 0x2c, 0x77, 0x39, 0x2c, 0x77, 0x77, 0x4d, 0x2c, 0x77, 0x77, 0x77, 0x2c,
        0x2c, 0x77, 0x77, 0x2c, 0x77, 0x39, 0x2c, 0x77, 0x77, 0x49, 0x2c, 0x77, 0x32, 0x2c, 0x77, 0x00, 0x00, 0x00,
        0x00, 0xff, 0xff, 0xff, 0xff, 0x77, 0x77, 0x49, 0x2c, 0x77, 0x32, 0x2c, 0x77, 0x77, 0x2c, 0x77, 0x76, 0xce,
        0x77, 0x77, 0x2c, 0x77, 0x7e, 0x2c, 0x77, 0x77,
    ]

    /// FuzzH265Depacketizer: the same SPS damage arriving in band, through ParameterSets.update.
    static let hugeBitDepthInBand: [UInt8] = [
        0x00, 0x80, 0x41, 0x43, 0x43, 0x14, 0x00, 0x05, 0x05, 0x05, 0x05, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x05,
        0x05, 0x05, 0x3f, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x80, 0x04, 0xff, 0x6e, 0x74, 0x49,
        0x6e, 0xff, 0xff, 0x05, 0x05, 0x05, 0x05, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x05, 0x05, 0x05, 0x3f, 0x3f,
        0x05, 0x05, 0xff,
    ]

    @Test func anSPSWithAnImpossibleBitDepthIsAnErrorNotACrash() {
        var nal = Array(Self.hugeBitDepthSPS.dropFirst())
        nal[0] = (nal[0] & 0x81) | 33 << 1  // FuzzSPS makes the first byte an H.265 SPS header
        let error = #expect(throws: H26xError.self) { try SequenceParameterSet(NALUnit(codec: .h265, bytes: nal[...])) }
        #expect(error?.code == .invalidParameterSet)
    }

    @Test func anInBandSPSWithAnImpossibleBitDepthIsStoredWithoutACrash() {
        // FuzzH265Depacketizer's framing: per packet a control byte (0x80 marker, 0x40 loss, 0x20 new
        // timestamp) and a length byte, then the payload.
        var depacketizer = H26xDepacketizer(
            codec: .h265, configuration: .init(maxNALSize: 4096, maxAccessUnitSize: 16384), maxDONDiff: 0)
        let input = Self.hugeBitDepthInBand.dropFirst()
        var offset = input.startIndex
        var seq: UInt16 = 0
        var timestamp: UInt32 = 0
        var units = 0
        while offset + 2 <= input.endIndex {
            let control = input[offset]
            let end = min(offset + 2 + Int(input[offset + 1]), input.endIndex)
            let payload = Array(input[(offset + 2)..<end])
            offset = end
            if control & 0x40 != 0 {
                depacketizer.noteLoss(Int(control & 0x07) + 1)
                while depacketizer.nextAccessUnit() != nil { units += 1 }
            }
            if control & 0x20 != 0 { timestamp &+= 3000 }
            let packet = RTPPacketBuilder(
                marker: control & 0x80 != 0, sequenceNumber: seq, timestamp: timestamp, ssrc: 1, payload: payload
            ).packet()
            seq &+= 1
            depacketizer.push(packet)
            while depacketizer.nextAccessUnit() != nil { units += 1 }
        }
        depacketizer.flush()
        while depacketizer.nextAccessUnit() != nil { units += 1 }
        #expect(depacketizer.parameterSets.sequenceParameterSet == nil)
    }

    @Test func scalingListDeltasOfAnySizeDoNotOverflow() throws {
        // A scaling list whose first delta_scale is se(v) code 2^32 - 3, that is +2^31 - 1: 31 zero bits, a
        // one, then 31 bits of 2^31 - 2. Added to the last scale (8) it overflowed Int32.
        var r = BitReader(rbspOf: [0x00, 0x00, 0x00, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFC, 0x00][...], headerLength: 1)
        #expect(throws: (any Error).self) { try SequenceParameterSet.skipScalingList(&r, size: 16) }
    }
}
