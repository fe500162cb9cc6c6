import RTP
import Testing

@_spi(SansIO) @testable import PacketCapture

@Suite struct TCPStreamReassemblerTests {
    static let client = SocketAddress(address: .v4(1), port: 50000)
    static let server = SocketAddress(address: .v4(2), port: 554)

    static func segment(_ seq: UInt32, _ text: String, flags: TCPSegment.Flags = .ack) -> TCPSegment {
        TCPSegment(
            recordIndex: 0, time: ArrivalTime(nanoseconds: 0), source: client, destination: server, sequenceNumber: seq,
            flags: flags, payload: Array(text.utf8)[...], isTruncated: false)
    }

    /// The stream text, with "<gap N>" where N bytes were missing.
    static func run(_ segments: [TCPSegment], limits: TCPStreamReassembler.Limits = .init()) -> (
        String, TCPStreamReassembler
    ) {
        var reassembler = TCPStreamReassembler(limits: limits)
        var text = ""
        let emit = { (chunk: TCPStreamReassembler.Chunk) in
            if chunk.missingBefore > 0 { text += "<gap \(chunk.missingBefore)>" }
            text += String(decoding: chunk.bytes, as: UTF8.self)
        }
        for s in segments { reassembler.add(s, emit: emit) }
        reassembler.finish(emit: emit)
        return (text, reassembler)
    }

    @Test func inOrderSegmentsAfterTheHandshake() {
        let (text, _) = Self.run([
            Self.segment(99, "", flags: .syn), Self.segment(100, "OPTIONS "), Self.segment(108, "* RTSP/1.0"),
        ])
        #expect(text == "OPTIONS * RTSP/1.0")
    }

    @Test func outOfOrderSegmentsAreHeldUntilTheHoleFills() {
        var reassembler = TCPStreamReassembler()
        var text = ""
        reassembler.add(Self.segment(99, "", flags: .syn)) { _ in }
        reassembler.add(Self.segment(103, "def")) { text += String(decoding: $0.bytes, as: UTF8.self) }
        #expect(text.isEmpty)
        reassembler.add(Self.segment(100, "abc")) { text += String(decoding: $0.bytes, as: UTF8.self) }
        #expect(text == "abcdef")
    }

    @Test func retransmissionsAndOverlapsAreDeliveredOnce() {
        let (text, r) = Self.run([
            Self.segment(0, "", flags: .syn), Self.segment(1, "abcd"), Self.segment(1, "abcd"),
            Self.segment(3, "cdefg"),
            Self.segment(6, "fg"),
        ])
        #expect(text == "abcdefg")
        #expect(r.duplicateBytes == 4 + 2 + 2)
    }

    @Test func sequenceNumbersWrap() {
        let (text, _) = Self.run([
            Self.segment(UInt32.max - 3, "", flags: .syn), Self.segment(UInt32.max - 2, "abc"), Self.segment(0, "def"),
        ])
        #expect(text == "abcdef")
    }

    @Test func aCaptureStartingMidConnectionStartsAtTheFirstData() {
        let (text, _) = Self.run([Self.segment(5000, "xyz"), Self.segment(5003, "!")])
        #expect(text == "xyz!")
    }

    @Test func holesNeverCapturedAreSkippedAtTheEndAndCounted() {
        let (text, r) = Self.run([Self.segment(0, "", flags: .syn), Self.segment(1, "ab"), Self.segment(6, "fg")])
        #expect(text == "ab<gap 3>fg")
        #expect(r.missingBytes == 3)
    }

    @Test func heldBytesAreBounded() {
        var reassembler = TCPStreamReassembler(limits: .init(maxPendingBytes: 4))
        var text = ""
        let emit = { (chunk: TCPStreamReassembler.Chunk) in
            text +=
                (chunk.missingBefore > 0 ? "<gap \(chunk.missingBefore)>" : "")
                + String(decoding: chunk.bytes, as: UTF8.self)
        }
        reassembler.add(Self.segment(0, "", flags: .syn), emit: emit)
        reassembler.add(Self.segment(11, "abc"), emit: emit)
        #expect(text.isEmpty)
        reassembler.add(Self.segment(14, "de"), emit: emit)  // 5 bytes held > 4: give up the hole
        #expect(text == "<gap 10>abcde")
    }

    @Test func flowsAreBounded() {
        var reassembler = TCPStreamReassembler(limits: .init(maxFlows: 1))
        reassembler.add(Self.segment(0, "a")) { _ in }
        let other = TCPSegment(
            recordIndex: 0, time: ArrivalTime(nanoseconds: 0), source: Self.server, destination: Self.client,
            sequenceNumber: 0, flags: .ack, payload: [1][...], isTruncated: false)
        reassembler.add(other) { _ in }
        #expect(reassembler.droppedSegments == 1)
    }
}
