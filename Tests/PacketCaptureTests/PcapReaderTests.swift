import RTP
import TestSupport
import Testing

@testable import PacketCapture

@Suite struct PcapReaderTests {
    static let payload: [UInt8] = RTPPacketBuilder(sequenceNumber: 7, ssrc: 0x1234, payload: [1, 2, 3]).bytes()
    static let frame = CaptureBytes.ethernet(
        CaptureBytes.ipv4(payload: CaptureBytes.udp(sourcePort: 4000, destinationPort: 5000, payload: payload)))

    static func datagrams(_ bytes: [UInt8]) throws -> (datagrams: [UDPDatagram], capture: CaptureFile) {
        var capture = try CaptureFile(bytes: bytes)
        var out: [UDPDatagram] = []
        while let d = try capture.nextDatagram() { out.append(d) }
        return (out, capture)
    }

    @Test(arguments: [(false, false), (true, false), (false, true), (true, true)])
    func readsBothByteOrdersAndResolutions(bigEndian: Bool, nanoseconds: Bool) throws {
        let record = CaptureBytes.Record(seconds: 1_700_000_000, fraction: 123_456, frame: Self.frame)
        let bytes = CaptureBytes.pcap([record], bigEndian: bigEndian, nanoseconds: nanoseconds)
        let (datagrams, _) = try Self.datagrams(bytes)
        #expect(datagrams.count == 1)
        let expectedNanos: Int64 = 1_700_000_000 * 1_000_000_000 + (nanoseconds ? 123_456 : 123_456_000)
        #expect(datagrams.first?.time.nanoseconds == expectedNanos)
        #expect(datagrams.first?.source.description == "10.0.0.1:4000")
        #expect(datagrams.first?.destination.description == "10.0.0.2:5000")
        #expect(datagrams.first.map { Array($0.payload) } == Self.payload)
    }

    @Test func aFileCutMidRecordEndsWithAWarning() throws {
        let record = CaptureBytes.Record(seconds: 1, fraction: 0, frame: Self.frame)
        let whole = CaptureBytes.pcap([record, record])
        let (datagrams, capture) = try Self.datagrams(Array(whole.dropLast(5)))
        #expect(datagrams.count == 1)
        #expect(capture.warnings.truncatedAtEnd)
    }

    @Test func aFileCutInsideARecordHeaderEndsWithAWarning() throws {
        let record = CaptureBytes.Record(seconds: 1, fraction: 0, frame: Self.frame)
        let whole = CaptureBytes.pcap([record])
        let (datagrams, capture) = try Self.datagrams(whole + [0, 0, 0])
        #expect(datagrams.count == 1)
        #expect(capture.warnings.truncatedAtEnd)
    }

    @Test func anAbsurdRecordLengthIsAnErrorWithItsOffset() throws {
        var bytes = CaptureBytes.pcap([CaptureBytes.Record(seconds: 1, fraction: 0, frame: Self.frame)])
        bytes += CaptureBytes.le32(1) + CaptureBytes.le32(0) + CaptureBytes.le32(0x7FFF_FFFF) + CaptureBytes.le32(10)
        var capture = try CaptureFile(bytes: bytes)
        #expect(try capture.nextDatagram() != nil)
        let error = #expect(throws: CaptureError.self) { try capture.nextDatagram() }
        #expect(error?.code == .malformedRecord)
        #expect(error?.offset == 24 + 16 + Self.frame.count)
        #expect(error?.description.contains("record 1") == true)
    }

    @Test func aFileThatIsNoCaptureSaysSo() {
        let error = #expect(throws: CaptureError.self) { try CaptureFile(bytes: Array("hello, world".utf8)) }
        #expect(error?.code == .notACapture)
        #expect(throws: CaptureError.self) { try CaptureFile(bytes: []) }
        #expect(throws: CaptureError.self) { try CaptureFile(bytes: [0xD4, 0xC3, 0xB2, 0xA1]) }
    }

    @Test func anUnknownVersionIsRefused() {
        var bytes = CaptureBytes.pcap([])
        bytes[4] = 3
        let error = #expect(throws: CaptureError.self) { try CaptureFile(bytes: bytes) }
        #expect(error?.code == .unsupportedVersion)
    }

    @Test func aMissingFileIsAClearError() {
        let error = #expect(throws: CaptureError.self) { try CaptureFile(contentsOf: "/nonexistent/x.pcap") }
        #expect(error?.code == .unreadable)
        #expect(error?.description.contains("No such file") == true)
    }
}
