import RTP
import Testing

@testable import H26x

@Suite struct ParameterSetsTests {
    // SPS 67 42 C0 1E ... and PPS 68 CE 3C 80 (Packets.sps / Packets.pps) in base64.
    static let spsBase64 = "Z0LAHtoCgL/lhAAAAwAE"
    static let ppsBase64 = "aM48gA=="

    @Test func spropParameterSetsToleratesATrailingCommaAndSpaces() throws {
        var sets = ParameterSets(codec: .h264)
        try sets.add(sdpParameter: "sprop-parameter-sets", value: " \(Self.spsBase64), \(Self.ppsBase64),")
        #expect(sets.all.map { Array($0.bytes) } == [Packets.sps, Packets.pps])
    }

    @Test func spropEntriesWithStartCodesInsideAreSplit() throws {
        let annexB: [UInt8] = [0, 0, 0, 1] + Packets.sps + [0, 0, 0, 1] + Packets.pps
        var sets = ParameterSets(codec: .h264)
        try sets.add(sdpParameter: "sprop-parameter-sets", value: base64(annexB))
        #expect(sets.all.count == 2)
    }

    @Test func badBase64IsAClearError() {
        var sets = ParameterSets(codec: .h264)
        let error = #expect(throws: H26xError.self) {
            try sets.add(sdpParameter: "sprop-parameter-sets", value: "\(Self.spsBase64),@@not base64@@")
        }
        #expect(error?.code == .invalidSDPParameter)
        #expect(error?.description.contains("sprop-parameter-sets entry 2") == true)
    }

    @Test func anEntryThatIsNoParameterSetIsRefused() {
        var sets = ParameterSets(codec: .h264)
        let error = #expect(throws: H26xError.self) {
            try sets.add(sdpParameter: "sprop-parameter-sets", value: base64(Packets.idr()))
        }
        #expect(error?.description.contains("IDR") == true)
    }

    /// A camera's garbage (an AUD, bad base64) beside good sets: the good ones are kept, each bad one reported.
    @Test func addValidKeepsTheParameterSetsAndReportsEachEntryLeftOut() {
        var sets = ParameterSets(codec: .h264)
        let annexB: [UInt8] = [0, 0, 0, 1, 0x09, 0x10] + [0, 0, 0, 1] + Packets.pps
        let problems = sets.addValid(
            sdpParameter: "sprop-parameter-sets", value: "CRA=,\(Self.spsBase64),@@not base64@@,\(base64(annexB))")
        #expect(sets.all.map { Array($0.bytes) } == [Packets.sps, Packets.pps])
        #expect(problems.map(\.code) == [.invalidSDPParameter, .invalidSDPParameter, .invalidSDPParameter])
        #expect(
            problems.map(\.reason) == [
                "sprop-parameter-sets entry 1 holds a AUD NAL unit, not a parameter set",
                "sprop-parameter-sets entry 3 is not valid base64; check the camera's SDP (a=fmtp line)",
                "sprop-parameter-sets entry 4 holds a AUD NAL unit, not a parameter set",
            ])
    }

    @Test func updatesReportChangesAndKeepSeveralIds() {
        var sets = ParameterSets(codec: .h264)
        let pps0 = NALUnit(codec: .h264, bytes: Packets.pps[...])  // pic_parameter_set_id 0 (first bit 1)
        let pps1 = NALUnit(codec: .h264, bytes: [0x68, 0x4E, 0x3C, 0x80][...])  // ue "010" = id 1
        let first = sets.update(pps0)
        let again = sets.update(pps0)
        let other = sets.update(pps1)
        #expect(first && !again && other)
        #expect(sets.all.count == 2)
        let changed0 = NALUnit(codec: .h264, bytes: [0x68, 0xCE, 0x3C, 0x81][...])
        let changed = sets.update(changed0)
        #expect(changed)
        #expect(sets.all.count == 2)
    }

    @Test func h265SetsComeFromTheirOwnParameters() throws {
        var sets = ParameterSets(codec: .h265)
        try sets.add(sdpParameter: "sprop-vps", value: base64(H265DepacketizerTests.vps))
        try sets.add(sdpParameter: "sprop-pps", value: base64(H265DepacketizerTests.pps))
        #expect(sets.all.map(\.typeName) == ["VPS", "PPS"])
    }

    func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        for chunk in stride(from: 0, to: bytes.count, by: 3) {
            let b = Array(bytes[chunk..<min(chunk + 3, bytes.count)]) + [0, 0]
            let n = Int(b[0]) << 16 | Int(b[1]) << 8 | Int(b[2])
            let count = min(3, bytes.count - chunk)
            for i in 0..<4 { out.append(i <= count ? alphabet[n >> (18 - 6 * i) & 63] : "=") }
        }
        return out
    }
}

@Suite struct SequenceParameterSetTests {
    @Test func parsesAnH264SPS() throws {
        // Packets.sps decoded by hand (H.264 7.3.2.1.1): profile_idc 66, level_idc 30, sps_id 0, poc type 2,
        // pic_width_in_mbs_minus1 39 (640), pic_height_in_map_units_minus1 22 (368), frame_mbs_only 1,
        // cropping with frame_crop_bottom_offset 4 (x2 lines in 4:2:0) -> 640x360.
        let sps = try SequenceParameterSet(NALUnit(codec: .h264, bytes: Packets.sps[...]))
        #expect(sps.profile == 66)
        #expect(sps.level == 30)
        #expect(sps.chromaFormat == 1)
        #expect(sps.bitDepthLuma == 8)
        #expect(sps.width == 640)
        #expect(sps.height == 360)
    }

    @Test(arguments: [4, 6, 8])
    func aTruncatedSPSIsAClearError(length: Int) {
        let error = #expect(throws: H26xError.self) {
            try SequenceParameterSet(NALUnit(codec: .h264, bytes: Packets.sps.prefix(length)))
        }
        #expect(error?.code == .invalidParameterSet)
    }

    @Test func aNALUnitThatIsNoSPSIsRefused() {
        #expect(throws: H26xError.self) { try SequenceParameterSet(NALUnit(codec: .h264, bytes: Packets.pps[...])) }
    }

    @Test func anImpossibleSizeIsRefused() {
        // pic_width_in_mbs_minus1 coded as a 20-bit Exp-Golomb value: over 16384 pixels.
        let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E, 0xF4, 0x00, 0x00, 0x08, 0x01, 0xFF, 0xFF, 0x80]
        #expect(throws: H26xError.self) { try SequenceParameterSet(NALUnit(codec: .h264, bytes: sps[...])) }
    }
}

@Suite struct BitReaderTests {
    @Test func skipsEmulationPreventionBytes() throws {
        // 00 00 03 01 reads as 00 00 01.
        var r = BitReader(rbspOf: [0xFF, 0x00, 0x00, 0x03, 0x01][...], headerLength: 1)
        #expect(try r.bits(24) == 0x000001)
        #expect(throws: BitReader.EndOfData.self) { try r.bit() }
    }

    @Test func readsExpGolombCodes() throws {
        // 1 | 010 | 011 | 00100 | 00101 -> ue 0, 1, 2, 3, 4; then 00110 (code 5) as se(v) = +3; 00101 (4) = -2.
        var r = BitReader(rbspOf: [0x00, 0b1010_0110, 0b0100_0010, 0b1001_1000, 0b1010_0000][...], headerLength: 1)
        #expect(
            try [r.unsignedGolomb(), r.unsignedGolomb(), r.unsignedGolomb(), r.unsignedGolomb(), r.unsignedGolomb()]
                == [0, 1, 2, 3, 4])
        #expect(try r.signedGolomb() == 3)
        #expect(try r.signedGolomb() == -2)
    }

    @Test func refusesOverlongCodes() {
        var r = BitReader(rbspOf: [UInt8](repeating: 0, count: 10)[...], headerLength: 0)
        #expect(throws: BitReader.EndOfData.self) { try r.unsignedGolomb() }
    }
}

@Suite struct WriterAndSnifferTests {
    static func unit(_ nals: [[UInt8]], keyframe: Bool) -> AccessUnit {
        var storage: [UInt8] = []
        var ranges: [Range<Int>] = []
        for nal in nals {
            ranges.append(storage.count..<(storage.count + nal.count))
            storage += nal
        }
        return AccessUnit(
            codec: .h264, timestamp: 0, nalUnits: .init(codec: .h264, storage: storage, ranges: ranges),
            isKeyframe: keyframe, parameterSetsChanged: false, lostPackets: 0, ssrc: 1)
    }

    @Test func annexBInsertsParameterSetsBeforeAKeyframeThatLacksThem() {
        var sets = ParameterSets(codec: .h264)
        sets.update(NALUnit(codec: .h264, bytes: Packets.sps[...]))
        sets.update(NALUnit(codec: .h264, bytes: Packets.pps[...]))
        var out: [UInt8] = []
        ElementaryStreamWriter().write(Self.unit([Packets.idr()], keyframe: true), parameterSets: sets, into: &out)
        #expect(out == [0, 0, 0, 1] + Packets.sps + [0, 0, 0, 1] + Packets.pps + [0, 0, 0, 1] + Packets.idr())
        out = []
        ElementaryStreamWriter().write(Self.unit([Packets.slice()], keyframe: false), parameterSets: sets, into: &out)
        #expect(out == [0, 0, 0, 1] + Packets.slice())
    }

    @Test func lengthPrefixedFraming() {
        var out: [UInt8] = []
        ElementaryStreamWriter(framing: .lengthPrefixed(size: 4)).write(
            Self.unit([Packets.pps, [0x09, 0xF0]], keyframe: false), parameterSets: ParameterSets(codec: .h264),
            into: &out)
        #expect(out == [0, 0, 0, 4] + Packets.pps + [0, 0, 0, 2, 0x09, 0xF0])
    }

    @Test func avcDecoderConfigurationRecord() {
        var sets = ParameterSets(codec: .h264)
        #expect(throws: H26xError.self) { try sets.decoderConfigurationRecord() }
        sets.update(NALUnit(codec: .h264, bytes: Packets.sps[...]))
        #expect(throws: H26xError.self) { try sets.decoderConfigurationRecord() }  // no PPS yet
        sets.update(NALUnit(codec: .h264, bytes: Packets.pps[...]))
        let record = try? sets.decoderConfigurationRecord()
        // Constrained Baseline: no High-profile fields after the PPS (ConfigurationRecordTests has High).
        #expect(record == [1, 0x42, 0xC0, 0x1E, 0xFF, 0xE1, 0, 15] + Packets.sps + [1, 0, 4] + Packets.pps)
    }

    @Test(arguments: [
        ([UInt8]([0x67, 0x42]), VideoCodec?.some(.h264)), ([0x7C, 0x85], .h264), ([0x5C, 0x01], .h264),
        ([0x41, 0x9A], .h264), ([0x40, 0x01], .h265), ([0x62, 0x01], .h265), ([0x02, 0x01], .h265),
        ([0x26, 0x01], nil), ([0xFF, 0xFF], nil),
    ])
    func codecSniffing(payload: [UInt8], codec: VideoCodec?) {
        #expect(CodecSniffer.codec(ofPayload: payload[...]) == codec)
    }

    @Test func annexBSplitDropsTrailingZerosAndLeadingStartCodes() {
        let bytes: [UInt8] = [0, 0, 0, 1, 0x67, 1, 0, 0, 0, 0, 1, 0x68, 2, 0, 0, 1, 0x65]
        #expect(AnnexB.split(bytes[...]).map { Array(bytes[$0]) } == [[0x67, 1], [0x68, 2], [0x65]])
    }
}
