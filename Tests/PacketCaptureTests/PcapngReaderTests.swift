import RTP
import TestSupport
import Testing

@testable import PacketCapture

@Suite struct PcapngReaderTests {
    static let frame = PcapReaderTests.frame
    static let rawFrame = CaptureBytes.ipv4(
        payload: CaptureBytes.udp(sourcePort: 1, destinationPort: 2, payload: PcapReaderTests.payload))

    @Test func readsInterfacesWithTheirOwnLinkTypeAndResolution() throws {
        let bytes =
            CaptureBytes.sectionHeader()
            + CaptureBytes.interface(linkType: 1)  // microseconds by default
            + CaptureBytes.interface(linkType: 101, resolution: 9)  // raw IP, nanoseconds
            + CaptureBytes.interface(linkType: 101, resolution: 0x80 | 10, offsetSeconds: 100)  // 2^-10 s, +100 s
            + CaptureBytes.enhancedPacket(interface: 0, units: 1_500_000, frame: Self.frame)
            + CaptureBytes.block(5, [UInt8](repeating: 0, count: 8))  // interface statistics: skipped
            + CaptureBytes.enhancedPacket(interface: 1, units: 2_000_000_001, frame: Self.rawFrame)
            + CaptureBytes.enhancedPacket(interface: 2, units: 1024 + 512, frame: Self.rawFrame)
        let (datagrams, capture) = try PcapReaderTests.datagrams(bytes)
        #expect(datagrams.map(\.time.nanoseconds) == [1_500_000_000, 2_000_000_001, 101_500_000_000])
        #expect(capture.warnings.skippedBlocks == 1)
        #expect(capture.format == "pcapng")
    }

    @Test func readsBigEndianSections() throws {
        let bytes =
            CaptureBytes.sectionHeader(big: true) + CaptureBytes.interface(linkType: 1, big: true)
            + CaptureBytes.enhancedPacket(interface: 0, units: 42, frame: Self.frame, big: true)
        let (datagrams, _) = try PcapReaderTests.datagrams(bytes)
        #expect(datagrams.map(\.time.nanoseconds) == [42_000])
    }

    @Test func simplePacketBlocksInheritTheLastTime() throws {
        let bytes =
            CaptureBytes.sectionHeader() + CaptureBytes.interface(linkType: 1)
            + CaptureBytes.enhancedPacket(interface: 0, units: 7, frame: Self.frame)
            + CaptureBytes.simplePacket(frame: Self.frame)
        let (datagrams, _) = try PcapReaderTests.datagrams(bytes)
        #expect(datagrams.map(\.time.nanoseconds) == [7000, 7000])
    }

    @Test func aPacketNamingAnUnknownInterfaceIsAnError() throws {
        let bytes =
            CaptureBytes.sectionHeader() + CaptureBytes.interface(linkType: 1)
            + CaptureBytes.enhancedPacket(interface: 3, units: 0, frame: Self.frame)
        var capture = try CaptureFile(bytes: bytes)
        let error = #expect(throws: CaptureError.self) { try capture.nextDatagram() }
        #expect(error?.description.contains("interface 3") == true)
    }

    @Test func aBlockWithABadLengthIsAnError() throws {
        var bytes = CaptureBytes.sectionHeader() + CaptureBytes.interface(linkType: 1)
        bytes += CaptureBytes.le32(6) + CaptureBytes.le32(7) + [0, 0, 0, 0]  // length 7: not a multiple of 4
        var capture = try CaptureFile(bytes: bytes)
        let error = #expect(throws: CaptureError.self) { try capture.nextDatagram() }
        #expect(error?.code == .malformedRecord)
    }

    @Test func aPacketLongerThanItsBlockIsAnError() throws {
        var block = CaptureBytes.enhancedPacket(interface: 0, units: 0, frame: Self.frame)
        block[20] = 0xFF  // captured length low byte
        block[21] = 0xFF
        let bytes = CaptureBytes.sectionHeader() + CaptureBytes.interface(linkType: 1) + block
        var capture = try CaptureFile(bytes: bytes)
        #expect(throws: CaptureError.self) { try capture.nextDatagram() }
    }

    @Test func aFileCutMidBlockEndsWithAWarning() throws {
        let bytes =
            CaptureBytes.sectionHeader() + CaptureBytes.interface(linkType: 1)
            + CaptureBytes.enhancedPacket(interface: 0, units: 0, frame: Self.frame)
            + CaptureBytes.enhancedPacket(interface: 0, units: 0, frame: Self.frame)
        let (datagrams, capture) = try PcapReaderTests.datagrams(Array(bytes.dropLast(10)))
        #expect(datagrams.count == 1)
        #expect(capture.warnings.truncatedAtEnd)
    }
}
