import RTP
import TestSupport
import Testing

@_spi(SansIO) @testable import PacketCapture

@Suite struct LinkLayerTests {
    static let ip = PcapngReaderTests.rawFrame

    static func one(_ frame: [UInt8], linkType: UInt32) throws -> (UDPDatagram?, CaptureWarnings) {
        let (datagrams, capture) = try PcapReaderTests.datagrams(
            CaptureBytes.pcap([CaptureBytes.Record(seconds: 0, fraction: 0, frame: frame)], linkType: linkType))
        return (datagrams.first, capture.warnings)
    }

    @Test func ethernetWithStackedVLANTags() throws {
        let (d, _) = try Self.one(CaptureBytes.ethernet(Self.ip, vlans: [10, 20]), linkType: 1)
        #expect(d?.destination.port == 2)
    }

    @Test func linuxCookedV1AndV2() throws {
        #expect(try Self.one(CaptureBytes.sll(Self.ip), linkType: 113).0 != nil)
        #expect(try Self.one(CaptureBytes.sll2(Self.ip), linkType: 276).0 != nil)
    }

    @Test func bsdLoopbackInEitherByteOrderAndOpenBSDLoop() throws {
        #expect(try Self.one(CaptureBytes.le32(2) + Self.ip, linkType: 0).0 != nil)
        #expect(try Self.one(CaptureBytes.be32(2) + Self.ip, linkType: 0).0 != nil)
        #expect(try Self.one(CaptureBytes.be32(2) + Self.ip, linkType: 108).0 != nil)
        let v6 = CaptureBytes.ipv6(payload: CaptureBytes.udp(sourcePort: 1, destinationPort: 9, payload: [0x80]))
        #expect(try Self.one(CaptureBytes.le32(30) + v6, linkType: 0).0?.destination.port == 9)
    }

    @Test func rawIPv4AndIPv6() throws {
        let v6 = CaptureBytes.ipv6(payload: CaptureBytes.udp(sourcePort: 1, destinationPort: 9, payload: [1]))
        #expect(try Self.one(Self.ip, linkType: 101).0 != nil)
        #expect(try Self.one(v6, linkType: 101).0?.source.description == "[::1]:1")
        #expect(try Self.one(v6, linkType: 229).0?.destination.description == "[2001:db8::5]:9")
        #expect(try Self.one(Self.ip, linkType: 228).0 != nil)
    }

    @Test func otherTrafficIsCountedNotReturned() throws {
        #expect(try Self.one(CaptureBytes.ethernet([1, 2, 3], etherType: 0x0806), linkType: 1).1.notIP == 1)
        let icmp = CaptureBytes.ipv4(protocolNumber: 1, payload: [8, 0, 0, 0, 0, 0, 0, 0])
        #expect(try Self.one(CaptureBytes.ethernet(icmp), linkType: 1).1.notUDP == 1)
        #expect(try Self.one(Self.ip, linkType: 147).1.unsupportedLinkType == 1)
    }

    @Test func tcpSegmentsAreDecodedButAreNotDatagrams() throws {
        // Source port 1, destination 2, sequence 7, data offset 5 words, flags PSH|ACK, then "hi".
        let header: [UInt8] = [0, 1, 0, 2, 0, 0, 0, 7, 0, 0, 0, 0, 0x50, 0x18, 0xFF, 0xFF, 0, 0, 0, 0]
        let frame = CaptureBytes.ethernet(CaptureBytes.ipv4(protocolNumber: 6, payload: header + Array("hi".utf8)))
        let bytes = CaptureBytes.pcap([CaptureBytes.Record(seconds: 0, fraction: 0, frame: frame)])
        var capture = try CaptureFile(bytes: bytes)
        guard case .tcp(let segment)? = try capture.nextPacket() else {
            Issue.record("expected a TCP segment")
            return
        }
        #expect(segment.sequenceNumber == 7)
        #expect(segment.flags == [.ack])
        #expect(Array(segment.payload) == Array("hi".utf8))
        #expect(try Self.one(frame, linkType: 1).1.notUDP == 1)
    }

    @Test func ipv4OptionsAndEthernetPaddingAreHandled() throws {
        let udp = CaptureBytes.udp(sourcePort: 1, destinationPort: 2, payload: [9, 9])
        let packet = CaptureBytes.ipv4(payload: udp, options: [1, 1, 1, 0])
        let (d, _) = try Self.one(CaptureBytes.ethernet(packet) + [0, 0, 0, 0, 0, 0], linkType: 1)
        #expect(d.map { Array($0.payload) } == [9, 9])
    }

    @Test func ipv6ExtensionHeadersAreSkipped() throws {
        // Hop-by-hop (8 bytes) then destination options (8 bytes), then UDP.
        let extensions: [UInt8] = [60, 0, 1, 4, 0, 0, 0, 0] + [17, 0, 1, 4, 0, 0, 0, 0]
        let v6 = CaptureBytes.ipv6(
            nextHeader: 0, extensions: extensions,
            payload: CaptureBytes.udp(sourcePort: 3, destinationPort: 4, payload: [7]))
        let (d, _) = try Self.one(v6, linkType: 101)
        #expect(d.map { Array($0.payload) } == [7])
    }

    @Test func inconsistentHeadersAreCountedAsMalformed() throws {
        let shortHeader = [0x44] + Array(Self.ip.dropFirst())  // IHL 4: below the minimum
        #expect(try Self.one(shortHeader, linkType: 101).1.malformed == 1)
        var badUDP = Self.ip
        badUDP[20 + 4] = 0xFF  // UDP length beyond the packet, in a record that was not cut
        #expect(try Self.one(badUDP, linkType: 101).1.malformed == 1)
    }

    @Test func snaplenTruncatedDatagramsAreFlaggedNeverReadPast() throws {
        let full = CaptureBytes.ethernet(PcapngReaderTests.rawFrame)
        let cut = Array(full.prefix(14 + 20 + 8 + 12))
        let record = CaptureBytes.Record(seconds: 0, fraction: 0, frame: cut, originalLength: full.count)
        let (datagrams, capture) = try PcapReaderTests.datagrams(CaptureBytes.pcap([record]))
        #expect(datagrams.count == 1)
        #expect(datagrams.first?.isTruncated == true)
        #expect(datagrams.first?.payload.count == 12)
        #expect(capture.warnings.snaplenTruncated == 1)
    }

    /// `tcpdump -s 40` on Ethernet keeps 6 bytes of the UDP header (14 + 20 + 6): ports and length, no
    /// checksum. Such a record is counted as cut by the snaplen, never sliced past its end.
    @Test(arguments: 0...7)
    func aSnaplenInsideTheUDPHeaderIsCountedNotReadPast(kept: Int) throws {
        let full = CaptureBytes.ethernet(PcapngReaderTests.rawFrame)
        let cut = Array(full.prefix(14 + 20 + kept))
        let record = CaptureBytes.Record(seconds: 0, fraction: 0, frame: cut, originalLength: full.count)
        let v6 = CaptureBytes.ethernet(
            CaptureBytes.ipv6(payload: CaptureBytes.udp(sourcePort: 1, destinationPort: 2, payload: [1, 2, 3, 4])),
            etherType: 0x86DD)
        let cutV6 = CaptureBytes.Record(
            seconds: 0, fraction: 1, frame: Array(v6.prefix(14 + 40 + kept)), originalLength: v6.count)
        let (datagrams, capture) = try PcapReaderTests.datagrams(CaptureBytes.pcap([record, cutV6]))
        #expect(datagrams.isEmpty)
        #expect(capture.warnings.snaplenTruncated == 2)
        #expect(capture.warnings.malformed == 0)
    }

    @Test func ipv6AddressesPrintInRFC5952Form() {
        #expect(IPAddress.v6(high: 0, low: 1).description == "::1")
        #expect(IPAddress.v6(high: 0x2001_0db8_0000_0000, low: 0x0000_0000_0000_0001).description == "2001:db8::1")
        #expect(
            IPAddress.v6(high: 0x2001_0db8_0001_0000, low: 0x0001_0000_0000_0001).description == "2001:db8:1:0:1::1")
        #expect(IPAddress.v6(high: 0xfe80_0000_0000_0000, low: 0).description == "fe80::")
        #expect(IPAddress.v4(0x7F00_0001).description == "127.0.0.1")
    }
}
