import MediaPipeline
import RTP
import Testing

@testable import H26x

@Suite struct H265DepacketizerTests {
    typealias P = Packets
    static let vps: [UInt8] = [0x40, 0x01, 0x0C, 0x01, 0xFF, 0xFF]
    static let sps: [UInt8] = [0x42, 0x01, 0x01, 0x01, 0x60, 0x00]
    static let pps: [UInt8] = [0x44, 0x01, 0xC1, 0x72]
    static func idr(_ size: Int = 30) -> [UInt8] { [0x26, 0x01, 0xAF] + [UInt8](repeating: 0x5A, count: size - 3) }
    static func trail(_ size: Int = 20, fill: UInt8 = 3) -> [UInt8] {
        [0x02, 0x01, 0xD0] + [UInt8](repeating: fill, count: size - 3)
    }

    static func run(_ packets: [RTPPacket?], maxDONDiff: Int = 0) -> ([Packets.Unit], H26xDepacketizer) {
        var d = Depacketizer(H26xDepacketizer(codec: .h265, maxDONDiff: maxDONDiff))
        let units = Packets.run(&d, packets)
        return (units, H26xDepacketizer(codec: .h265, maxDONDiff: maxDONDiff))
    }

    static func ap(_ nals: [[UInt8]]) -> [UInt8] {
        [0x60, 0x01] + nals.flatMap { [UInt8($0.count >> 8), UInt8($0.count & 0xFF)] + $0 }
    }

    @Test func aggregationAndFragmentationUnits() {
        let nal = Self.idr(500)
        let body = Array(nal.dropFirst(2))
        let fu: [[UInt8]] = [
            [0x62, 0x01, 0x80 | 19] + body[0..<200], [0x62, 0x01, 19] + body[200..<400],
            [0x62, 0x01, 0x40 | 19] + body[400...],
        ]
        let packets =
            [P.rtp(1, ts: 0, Self.ap([Self.vps, Self.sps, Self.pps]))]
            + fu.enumerated().map { i, f in P.rtp(UInt16(2 + i), ts: 0, marker: i == 2, f) }
        let (units, _) = Self.run(packets)
        #expect(units.map(\.nals) == [[Self.vps, Self.sps, Self.pps, nal]])
        #expect(units.first?.keyframe == true)
    }

    /// Tiandy, in H.265: the FU type changes in the continuation fragments; the IDR is kept whole.
    @Test func quirkFUTypeChangingMidNALKeepsTheStartFragmentsType() {
        let nal = Self.idr(500)
        let body = Array(nal.dropFirst(2))
        let fu: [[UInt8]] = [
            [0x62, 0x01, 0x80 | 19] + body[0..<200], [0x62, 0x01, 1] + body[200..<400],
            [0x62, 0x01, 0x40 | 20] + body[400...],
        ]
        let (units, _) = Self.run(fu.enumerated().map { i, f in P.rtp(UInt16(i), ts: 0, marker: i == 2, f) })
        #expect(units.map(\.nals) == [[nal]])
        #expect(units.first?.keyframe == true)
        #expect(units.first?.lost == 0)
    }

    @Test func decodingOrderNumbersPutNALUnitsBackInOrder() {
        // Single NAL unit packets with DONL, sent as DON 2, 1, 3 (wrapping numbers would work the same).
        func withDON(_ nal: [UInt8], _ don: UInt16) -> [UInt8] {
            Array(nal.prefix(2)) + [UInt8(don >> 8), UInt8(don & 0xFF)] + nal.dropFirst(2)
        }
        let a = Self.trail(fill: 1)
        let b = Self.trail(fill: 2)
        let c = Self.trail(fill: 3)
        let (units, _) = Self.run(
            [P.rtp(1, ts: 3000, withDON(b, 2)), P.rtp(2, ts: 0, withDON(a, 1)), P.rtp(3, ts: 6000, withDON(c, 3))],
            maxDONDiff: 1)
        #expect(units.map(\.nals) == [[a], [b], [c]])
    }

    @Test func paciPayloadsAreUnwrapped() {
        // PACI: payload header type 50, then A=0 cType=1 (TRAIL_R) PHSsize=2, the 2-byte PHES, then the data.
        let nal = Self.trail()
        let fields: UInt16 = 1 << 9 | 2 << 4
        let paci: [UInt8] = [50 << 1, 0x01, UInt8(fields >> 8), UInt8(fields & 0xFF), 0xEE, 0xEE] + nal.dropFirst(2)
        let (units, _) = Self.run([P.rtp(1, ts: 0, marker: true, paci)])
        #expect(units.map(\.nals) == [[nal]])
    }

    @Test func nestedPACIAndUndefinedTypesAreRefusedWithAReason() {
        var d = H26xDepacketizer(codec: .h265)
        let fields: UInt16 = 50 << 9
        d.push(P.rtp(1, ts: 0, [50 << 1, 0x01, UInt8(fields >> 8), UInt8(fields & 0xFF), 1, 2, 3]))
        #expect(d.statistics.unsupportedPackets == 1)
        #expect(d.lastError?.code == .unsupportedPacketization)
        d.push(P.rtp(2, ts: 0, [55 << 1, 0x01, 0, 0]))
        #expect(d.statistics.unsupportedPackets == 2)
        #expect(d.lastError?.description.contains("55") == true)
    }

    @Test func truncatedAggregationIsMalformed() {
        var d = H26xDepacketizer(codec: .h265)
        d.push(P.rtp(1, ts: 0, [0x60, 0x01, 0x00, 0x40, 0x40]))
        #expect(d.statistics.malformedPackets == 1)
    }
}
