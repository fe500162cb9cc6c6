import Foundation
import RTP
import TestSupport
import Testing

@_spi(SansIO) @testable import PacketCapture

/// The one-step path for plain IPv4/UDP records (`PcapReader.nextPlainDatagram`) against the general path
/// (record → link layer → IP → UDP), which it must match datagram for datagram, warnings included.
@Suite struct PlainDatagramTests {
    struct Seen: Equatable {
        var index: Int
        var time: Int64
        var source: SocketAddress
        var destination: SocketAddress
        var payload: [UInt8]
        var truncated: Bool
    }

    /// The datagrams up to the end or to the error that stopped the reading, and the warnings.
    static func datagrams(_ open: () throws -> CaptureFile, plain: Bool) throws -> ([Seen], CaptureWarnings, String?) {
        var capture = try open()  // one each: copies of a CaptureFile share its open file
        capture.takesPlainPath = plain
        var seen: [Seen] = []
        do {
            while let d = try capture.nextDatagram() {
                seen.append(
                    Seen(
                        index: d.recordIndex, time: d.time.nanoseconds, source: d.source, destination: d.destination,
                        payload: Array(d.payload), truncated: d.isTruncated))
            }
        } catch {
            return (seen, capture.warnings, "\(error)")
        }
        return (seen, capture.warnings, nil)
    }

    /// How many datagrams both gave.
    @discardableResult
    static func expectSame(_ comment: Comment? = nil, _ open: () throws -> CaptureFile) throws -> Int {
        let (plain, plainWarnings, plainError) = try datagrams(open, plain: true)
        let (general, generalWarnings, generalError) = try datagrams(open, plain: false)
        defer {
            #expect(plainWarnings == generalWarnings, comment)
            #expect(plainError == generalError, comment)
        }
        guard plain != general else { return general.count }
        #expect(plain.count == general.count, comment)
        let first = plain.indices.first { $0 >= general.count || plain[$0] != general[$0] }
        #expect(first == nil, "\(comment.map { "\($0): " } ?? "")first difference at datagram \(first ?? -1)")
        return general.count
    }

    static let pcaps = [
        "h264-gst.pcap", "h264-ffmpeg.pcap", "h265-gst-sll.pcap", "h264-gst-snaplen.pcap", "h264-gst-truncated.pcap",
        "h264-gst-dropped.pcap", "garbage-records.pcap", "rtsp-h264-udp.pcap", "rtsp-h264-tcp.pcap",
        "h264-srtp.pcap", "h264-interleaved-mode2.pcap",
    ]

    static func path(_ name: String) -> String { ChunkedReadingTests.captures.appendingPathComponent(name).path }

    @Test(arguments: pcaps)
    func fixturesGiveTheSameDatagramsBothWays(name: String) throws {
        let count = try Self.expectSame { try CaptureFile(contentsOf: Self.path(name)) }
        if name.hasPrefix("h26") { #expect(count > 100) }
        // and with chunks so small that records straddle them
        try Self.expectSame { try CaptureFile(contentsOf: Self.path(name), chunkSize: 1000) }
    }

    /// The record index of each packet read, whether it is TCP, and its payload's size, up to the end or to
    /// the error that stopped the reading. `plainFirst`: as ``RTSPSessionDatagrams`` reads, each record is
    /// first offered to `nextPlainDatagram`, then read with `nextPacket`; otherwise the general path only.
    static func packets(_ name: String, plainFirst: Bool, chunkSize: Int) throws -> (
        packets: [(index: Int, tcp: Bool, size: Int)], plain: Int, error: String?
    ) {
        var capture = try CaptureFile(contentsOf: path(name), chunkSize: chunkSize)
        capture.takesPlainPath = plainFirst
        var packets: [(index: Int, tcp: Bool, size: Int)] = []
        var plain = 0
        do {
            while true {
                if let datagram = capture.nextPlainDatagram() {
                    plain += 1
                    packets.append((datagram.recordIndex, false, datagram.payload.count))
                    continue
                }
                guard let packet = try capture.nextPacket() else { break }
                switch packet {
                case .udp(let datagram): packets.append((datagram.recordIndex, false, datagram.payload.count))
                case .tcp(let segment): packets.append((segment.recordIndex, true, segment.payload.count))
                }
            }
        } catch {
            return (packets, plain, "\(error)")
        }
        return (packets, plain, nil)
    }

    /// Taking plain records first, then the rest with `nextPacket`, gives every packet the general path
    /// gives, in order (with 1000-byte chunks, also records that straddle two chunks), and stops at the same
    /// error.
    @Test(arguments: pcaps)
    func plainRecordsFirstThenTheRestGiveThePacketsOfTheGeneralPath(name: String) throws {
        for chunkSize in [CaptureFile.defaultChunkSize, 1000] {
            let (all, none, allError) = try Self.packets(name, plainFirst: false, chunkSize: chunkSize)
            let (mixed, plain, mixedError) = try Self.packets(name, plainFirst: true, chunkSize: chunkSize)
            #expect(none == 0)
            #expect(mixedError == allError)
            #expect(mixed.map(\.index) == all.map(\.index))
            #expect(mixed.map(\.tcp) == all.map(\.tcp))
            #expect(mixed.map(\.size) == all.map(\.size))
            if name.hasPrefix("rtsp-h264-tcp") { #expect(mixed.contains { $0.tcp }) }
            if name.hasPrefix("h26") && chunkSize > 1000 { #expect(plain > 100 && plain > (mixed.count - plain) * 10) }
        }
    }

    @Test func thePlainPathIsTakenForEthernetAndSLLCaptures() throws {
        for name in ["h264-gst.pcap", "h265-gst-sll.pcap"] {
            var capture = try CaptureFile(contentsOf: Self.path(name))
            #expect(capture.pcap?.nextPlainDatagram() != nil, "\(name)")
        }
    }

    typealias B = CaptureBytes

    /// Records the plain path must take, and records it must leave to the general path: whatever it does,
    /// both ways give the same datagrams and the same warnings.
    @Test func editedRecordsGiveTheSameDatagramsBothWays() throws {
        let udp = B.udp(
            sourcePort: 5000, destinationPort: 5004, payload: [0x80, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0x65])
        let ip = B.ipv4(payload: udp)
        var longUDP = udp
        longUDP[5] = UInt8(udp.count + 4)  // UDP length past the IP packet
        var shortUDP = udp
        shortUDP[5] = 6  // UDP length under its header
        var notIPv4 = ip
        notIPv4[0] = 0x65
        let frames: [(String, [UInt8], UInt32, Int?)] = [
            ("ethernet", B.ethernet(ip), 1, nil),
            ("ethernet with padding", B.ethernet(ip) + [0, 0, 0, 0, 0, 0], 1, nil),
            ("VLAN tag", B.ethernet(ip, vlans: [7]), 1, nil),
            ("IPv6", B.ethernet(B.ipv6(payload: udp), etherType: 0x86DD), 1, nil),
            ("IP options", B.ethernet(B.ipv4(payload: udp, options: [1, 1, 1, 0])), 1, nil),
            ("first fragment", B.ethernet(B.ipv4(payload: udp, moreFragments: true)), 1, nil),
            ("later fragment", B.ethernet(B.ipv4(payload: udp, fragmentOffset: 8)), 1, nil),
            ("TCP", B.ethernet(B.ipv4(protocolNumber: 6, payload: udp + [UInt8](repeating: 0, count: 12))), 1, nil),
            ("IP length past the frame", B.ethernet(B.ipv4(payload: udp, totalLength: ip.count + 10)), 1, nil),
            ("IP length under its header", B.ethernet(B.ipv4(payload: udp, totalLength: 12)), 1, nil),
            ("UDP length past the IP packet", B.ethernet(B.ipv4(payload: longUDP)), 1, nil),
            ("UDP length under 8", B.ethernet(B.ipv4(payload: shortUDP)), 1, nil),
            ("not IPv4 inside", B.ethernet(notIPv4), 1, nil),
            ("snaplen", B.ethernet(ip), 1, B.ethernet(ip).count + 100),
            ("short frame", Array(B.ethernet(ip).prefix(30)), 1, nil),
            ("SLL", B.sll(ip), 113, nil),
            ("SLL2", B.sll2(ip), 276, nil),
            ("raw", ip, 101, nil),
            ("raw IPv4 link type", ip, 228, nil),
            ("raw, IPv6 inside", B.ipv6(payload: udp), 101, nil),
        ]
        for (name, frame, linkType, original) in frames {
            for bigEndian in [false, true] {
                let records = (0..<3).map { i in
                    B.Record(
                        seconds: 1_700_000_000 + UInt32(i), fraction: 250_000, frame: frame, originalLength: original)
                }
                let bytes = B.pcap(records, linkType: linkType, bigEndian: bigEndian)
                try Self.expectSame("\(name), big-endian \(bigEndian)") { try CaptureFile(bytes: bytes) }
            }
        }
    }
}
