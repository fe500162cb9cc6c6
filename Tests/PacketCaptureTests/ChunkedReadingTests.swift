import Foundation
import RTP
import Testing

@_spi(SansIO) @testable import PacketCapture

/// Reading a file in chunks gives exactly what reading it whole gives, at any chunk size, including
/// chunks smaller than one record (the record is then carried into a larger read).
@Suite struct ChunkedReadingTests {
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/captures")

    struct Summary: Equatable {
        var records: [Int] = []
        var times: [Int64] = []
        var payloadBytes: [UInt8] = []
        var warnings = CaptureWarnings()
    }

    static func read(_ capture: inout CaptureFile) throws -> Summary {
        var summary = Summary()
        while let packet = try capture.nextPacket() {
            switch packet {
            case .udp(let d):
                summary.records.append(d.recordIndex)
                summary.times.append(d.time.nanoseconds)
                summary.payloadBytes += d.payload
            case .tcp(let s):
                summary.records.append(s.recordIndex)
                summary.payloadBytes += s.payload
            }
        }
        summary.warnings = capture.warnings
        return summary
    }

    @Test(arguments: [
        "h264-gst.pcap", "h265-gst-sll.pcap", "h265-ffmpeg-ipv6.pcapng", "rtsp-h264-tcp.pcap",
        "h264-gst-truncated.pcap", "h264-gst-snaplen.pcap",
    ])
    func anyChunkSizeReadsTheSame(name: String) throws {
        let path = Self.captures.appendingPathComponent(name).path
        var whole = try CaptureFile(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        let expected = try Self.read(&whole)
        #expect(!expected.records.isEmpty)
        for chunkSize in [64, 1000, 4096, 65_536] {
            var chunked = try CaptureFile(contentsOf: path, chunkSize: chunkSize)
            #expect(try Self.read(&chunked) == expected, "chunk size \(chunkSize)")
        }
    }

    /// A read that fails after the file opened is an error that says why.
    @Test func aReadThatFailsIsAClearError() {
        let directory = Self.captures.path  // opens, but reading it fails (EISDIR)
        let error = #expect(throws: CaptureError.self) { try CaptureFile(contentsOf: directory) }
        #expect(error?.code == .unreadable)
        #expect(error?.description.contains("error reading capture") == true)
    }

    /// A capture read to its end answers nil again, whatever is asked next.
    @Test func readingPastTheEndReturnsNil() throws {
        let path = Self.captures.appendingPathComponent("h264-gst.pcap").path
        var capture = try CaptureFile(contentsOf: path, chunkSize: 1000)
        while try capture.nextPacket() != nil {}
        #expect(try capture.nextPacket() == nil)
        #expect(try capture.nextRecord() == nil)
    }

    @Test func errorOffsetsAreFileOffsetsWhateverTheChunk() throws {
        let path = Self.captures.appendingPathComponent("garbage-records.pcap").path
        for chunkSize in [64, 512, 1 << 20] {
            var capture = try CaptureFile(contentsOf: path, chunkSize: chunkSize)
            let error = #expect(throws: CaptureError.self) { while try capture.nextPacket() != nil {} }
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(error?.offset == size - 48, "chunk size \(chunkSize)")  // the absurd record's header
        }
    }
}
