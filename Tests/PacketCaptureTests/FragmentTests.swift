import RTP
import TestSupport
import Testing

@testable import PacketCapture

@Suite struct FragmentTests {
    static let rtp = RTPPacketBuilder(sequenceNumber: 1, ssrc: 5, payload: [UInt8](0..<200)).bytes()
    static let udp = CaptureBytes.udp(sourcePort: 10, destinationPort: 20, payload: rtp)

    static func records(_ frames: [[UInt8]]) -> [UInt8] {
        CaptureBytes.pcap(frames.map { CaptureBytes.Record(seconds: 0, fraction: 0, frame: $0) }, linkType: 101)
    }

    @Test func ipv4FragmentsAreReassembledInAnyOrder() throws {
        let first = CaptureBytes.ipv4(payload: Array(Self.udp[0..<104]), id: 9, moreFragments: true)
        let second = CaptureBytes.ipv4(payload: Array(Self.udp[104...]), id: 9, fragmentOffset: 104)
        let (datagrams, capture) = try PcapReaderTests.datagrams(Self.records([second, first]))
        #expect(datagrams.count == 1)
        #expect(datagrams.first.map { Array($0.payload) } == Self.rtp)
        #expect(capture.warnings.fragmentsReassembled == 1)
    }

    @Test func ipv6FragmentsAreReassembled() throws {
        func fragment(_ offset: Int, more: Bool, _ bytes: ArraySlice<UInt8>) -> [UInt8] {
            let field = UInt16(offset) | (more ? 1 : 0)
            return CaptureBytes.ipv6(
                nextHeader: 44, extensions: [17, 0] + CaptureBytes.be16(field) + CaptureBytes.be32(77),
                payload: Array(bytes))
        }
        let frames = [fragment(0, more: true, Self.udp[0..<112]), fragment(112, more: false, Self.udp[112...])]
        let (datagrams, _) = try PcapReaderTests.datagrams(Self.records(frames))
        #expect(datagrams.first.map { Array($0.payload) } == Self.rtp)
    }

    @Test func anIncompleteDatagramIsCountedAsDropped() throws {
        let first = CaptureBytes.ipv4(payload: Array(Self.udp[0..<104]), id: 9, moreFragments: true)
        let (datagrams, capture) = try PcapReaderTests.datagrams(Self.records([first]))
        #expect(datagrams.isEmpty)
        #expect(capture.warnings.fragmentsDropped == 1)
    }

    @Test func pendingDatagramsAreBounded() {
        var reassembler = FragmentReassembler()
        for id in 0..<(FragmentReassembler.maxPending + 10) {
            let key = FragmentReassembler.Key(
                source: .v4(1), destination: .v4(2), identification: UInt32(id), protocolNumber: 17)
            _ = reassembler.add(
                key, offset: 0, more: true, data: [1, 2, 3, 4, 5, 6, 7, 8][...], time: ArrivalTime(nanoseconds: 0))
        }
        #expect(reassembler.dropped == 10)
    }

    @Test func fragmentsBeyondTheLargestDatagramAreDropped() {
        var reassembler = FragmentReassembler()
        let key = FragmentReassembler.Key(source: .v4(1), destination: .v4(2), identification: 1, protocolNumber: 17)
        let result = reassembler.add(
            key, offset: 65_528, more: false, data: [UInt8](repeating: 0, count: 16)[...],
            time: ArrivalTime(nanoseconds: 0))
        #expect(result == nil)
        #expect(reassembler.dropped == 1)
    }

    @Test func staleDatagramsExpire() {
        var reassembler = FragmentReassembler()
        let old = FragmentReassembler.Key(source: .v4(1), destination: .v4(2), identification: 1, protocolNumber: 17)
        let new = FragmentReassembler.Key(source: .v4(1), destination: .v4(2), identification: 2, protocolNumber: 17)
        _ = reassembler.add(old, offset: 0, more: true, data: [1][...], time: ArrivalTime(nanoseconds: 0))
        _ = reassembler.add(new, offset: 0, more: true, data: [1][...], time: ArrivalTime(nanoseconds: 31_000_000_000))
        #expect(reassembler.dropped == 1)
    }
}
