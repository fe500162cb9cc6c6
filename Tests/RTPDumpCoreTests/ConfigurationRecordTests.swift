import MediaPipeline
import RTP
import Foundation
import PacketCapture
import RTPDumpCore
import TestSupport
import Testing

@testable import H26x

/// The avcC / hvcC records made from each capture's parameter sets, against the ones FFmpeg's MP4 muxer
/// wrote for GStreamer's depayloading of the same capture (Fixtures/scripts/config_records.sh).
@Suite struct ConfigurationRecordTests {
    /// A record taken apart: the fields before the parameter-set arrays, each array's distinct NAL units
    /// (trailing zero bytes dropped: FFmpeg keeps an Annex B stream's trailing_zero_8bits and repeats a set
    /// each time the stream does), and what follows the arrays (avcC's High-profile fields).
    struct Parts: Equatable, CustomStringConvertible {
        var fields: [UInt8] = []
        var arrays: [Set<[UInt8]>] = []
        var arrayHeaders: [UInt8] = []
        var trailer: [UInt8] = []
        var duplicates = 0

        var description: String {
            "fields \(hex(fields)), arrays \(arrayHeaders) of \(arrays.map(\.count)), trailer \(hex(trailer))"
        }

        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

        static func == (a: Parts, b: Parts) -> Bool {
            a.fields == b.fields && a.arrays == b.arrays && a.arrayHeaders == b.arrayHeaders && a.trailer == b.trailer
        }
    }

    static func parts(of record: [UInt8], codec: VideoCodec) throws -> Parts {
        var parts = Parts()
        var position = 0
        func take(_ count: Int) throws -> [UInt8] {
            guard position + count <= record.count else { throw CocoaError(.fileReadCorruptFile) }
            defer { position += count }
            return Array(record[position..<position + count])
        }
        func number(_ count: Int) throws -> Int { try take(count).reduce(0) { $0 << 8 | Int($1) } }
        func array(count: Int) throws -> Set<[UInt8]> {
            var nals: [[UInt8]] = []
            for _ in 0..<count {
                var nal = try take(try number(2))
                while nal.last == 0 { nal.removeLast() }
                nals.append(nal)
            }
            parts.duplicates += nals.count - Set(nals).count
            return Set(nals)
        }
        if codec == .h264 {
            parts.fields = try take(5)
            parts.arrays.append(try array(count: try number(1) & 0x1F))
            parts.arrays.append(try array(count: try number(1)))
        } else {
            parts.fields = try take(22)
            for _ in 0..<(try number(1)) {
                parts.arrayHeaders.append(try take(1)[0])
                parts.arrays.append(try array(count: try number(2)))
            }
        }
        parts.trailer = Array(record[position...])
        return parts
    }

    /// The parameter sets of the capture's stream, as its access units carried them (or of an Annex B
    /// stream, .h264 / .h265).
    static func parameterSets(of capture: String, codec: VideoCodec) throws -> ParameterSets {
        var sets = ParameterSets(codec: codec)
        if capture.hasSuffix(".h264") || capture.hasSuffix(".h265") {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.capture(capture))))
            for nal in AnnexBFile.nalUnits(bytes) { sets.update(NALUnit(codec: codec, bytes: nal[...])) }
            return sets
        }
        var file = try CaptureFile(contentsOf: Fixtures.capture(capture))
        var streams = CaptureMediaStreams.video(codec: codec)
        let take = { (_: StreamKey, unit: AccessUnit) in
            for nal in unit.nalUnits where nal.isParameterSet { sets.update(nal) }
        }
        while let datagram = try file.nextDatagram() { streams.add(datagram, accessUnits: take) }
        streams.finish(accessUnits: take)
        return sets
    }

    @Test(arguments: [
        ("h264-gst.pcap", VideoCodec.h264), ("h264-ffmpeg.pcap", .h264), ("h264-yuv444-ffmpeg.pcap", .h264),
        ("h265-gst-sll.pcap", .h265), ("h265-ffmpeg-ipv6.pcapng", .h265), ("h265-10bit-ffmpeg.pcap", .h265),
        // Streams rather than captures: HRD parameters in the VUI; High 4:2:2 at 10 bits.
        ("h265-hrd.h265", .h265), ("h264-high422-10bit.h264", .h264),
    ])
    func recordEqualsFFmpegs(capture: String, codec: VideoCodec) throws {
        let box = codec == .h264 ? "avcC" : "hvcC"
        let reference = try String(
            contentsOf: Fixtures.expected.appendingPathComponent("\(capture).ffmpeg.\(box)"), encoding: .utf8)
        let expected = try Self.parts(
            of: try #require(bytes(hex: reference.trimmingCharacters(in: .whitespacesAndNewlines))), codec: codec)
        let record = try Self.parameterSets(of: capture, codec: codec).decoderConfigurationRecord()
        let ours = try Self.parts(of: record, codec: codec)
        #expect(ours == expected)
        #expect(ours.duplicates == 0)
        #expect(ours.arrays.allSatisfy { !$0.isEmpty })
    }

    /// FFmpeg's record cannot show that the parser walked the SPS right up to the VUI's last fields (a
    /// wrong step there mostly still reads "no bitstream restrictions"); the SPS's trailing bits can.
    @Test(arguments: ["h265-gst-sll.pcap", "h265-ffmpeg-ipv6.pcapng", "h265-10bit-ffmpeg.pcap", "h265-hrd.h265"])
    func theSPSParserEndsAtTheTrailingBits(capture: String) throws {
        let sets = try Self.parameterSets(of: capture, codec: .h265)
        var fields = H265ConfigurationFields()
        for nal in sets.all where nal.type == 33 {
            try fields.add(nal)
            #expect(fields.lastSPSEndedAtTrailingBits)
        }
    }

    @Test func missingSetsAreNamed() throws {
        var sets = ParameterSets(codec: .h265)
        #expect(throws: H26xError.self) { try sets.decoderConfigurationRecord() }
        let complete = try Self.parameterSets(of: "h265-gst-sll.pcap", codec: .h265)
        for nal in complete.all where nal.type != 32 { sets.update(nal) }  // no VPS
        do {
            _ = try sets.decoderConfigurationRecord()
            Issue.record("a record without a VPS")
        } catch {
            #expect(error.code == .invalidParameterSet)
            #expect(error.reason.contains("VPS"))
        }
    }

    @Test func eightSubLayersAreRefused() throws {
        let complete = try Self.parameterSets(of: "h265-gst-sll.pcap", codec: .h265)
        var sets = ParameterSets(codec: .h265)
        for nal in complete.all {
            var bytes = Array(nal.bytes)
            if nal.type == 33 { bytes[2] = bytes[2] & 0xF1 | 0x0E }  // sps_max_sub_layers_minus1 = 7
            sets.update(NALUnit(codec: .h265, bytes: bytes[...]))
        }
        do {
            _ = try sets.decoderConfigurationRecord()
            Issue.record("a record with 8 sub-layers")
        } catch {
            #expect(error.reason.contains("8 sub-layers"))
        }
    }

    @Test func aTruncatedSPSIsAnErrorNotACrash() throws {
        let complete = try Self.parameterSets(of: "h265-gst-sll.pcap", codec: .h265)
        for cut in [3, 10, 20] {
            var sets = ParameterSets(codec: .h265)
            for nal in complete.all {
                sets.update(nal.type == 33 ? NALUnit(codec: .h265, bytes: nal.bytes.prefix(cut)) : nal)
            }
            #expect(throws: H26xError.self) { try sets.decoderConfigurationRecord() }
        }
    }
}
