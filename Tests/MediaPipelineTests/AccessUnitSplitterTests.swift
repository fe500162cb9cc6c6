import H26x
import RTP
import Testing

/// Annex B split into access units, against the access units real senders marked (the RTP marker bit, and
/// the timestamp, delimit them in the captures).
@Suite struct AccessUnitSplitterTests {
    static func annexB(_ units: [AccessUnit]) -> [UInt8] {
        units.flatMap { unit in unit.nalUnits.flatMap { [0, 0, 0, 1] + Array($0.bytes) } }
    }

    @Test(arguments: [
        ("h264-ffmpeg.pcap", VideoCodec.h264), ("h265-gst-sll.pcap", .h265), ("h265-ffmpeg-ipv6.pcapng", .h265),
        ("h265-10bit-ffmpeg.pcap", .h265),
    ])
    func theSendersAccessUnitsComeBack(name: String, codec: VideoCodec) throws {
        let (units, _, _) = try CaptureTracksTests.play(name)
        #expect(units.count > 20)
        let split = AccessUnitSplitter.accessUnits(in: Self.annexB(units), codec: codec)
        #expect(split.count == units.count)
        #expect(split.map { $0.map { Array($0) } } == units.map { $0.nalUnits.map { Array($0.bytes) } })
    }

    /// GStreamer's rtph264pay put SPS and PPS before each IDR slice, the second pair between the picture's two
    /// slices: H.264 section 7.4.1.2.3 makes a parameter set after a slice the start of the next access unit, so
    /// the picture splits there (FFmpeg's parser splits it the same way); every other picture is kept whole.
    @Test func aParameterSetAfterASliceStartsTheNextAccessUnit() throws {
        let (units, _, _) = try CaptureTracksTests.play("h264-gst.pcap")
        let first = try #require(units.first)
        #expect(first.nalUnits.map(\.type) == [9, 7, 8, 6, 7, 8, 5, 7, 8, 5])
        let split = AccessUnitSplitter.accessUnits(in: Self.annexB(units), codec: .h264)
        #expect(split.prefix(2).map { $0.map { $0[$0.startIndex] & 0x1F } } == [[9, 7, 8, 6, 7, 8, 5], [7, 8, 5]])
        let keyframes = units.filter(\.isKeyframe).count
        #expect(split.count == units.count + keyframes)
    }

    /// Slices of one picture stay together; a delimiter, or the next picture's first slice, ends it.
    @Test func slicesOfOnePictureStayTogether() {
        let firstSlice: [UInt8] = [0x41, 0x80]  // non-IDR, first_mb_in_slice 0
        let secondSlice: [UInt8] = [0x41, 0x40]  // first_mb_in_slice 1
        let delimiter: [UInt8] = [0x09, 0xF0]
        let stream: [UInt8] = [firstSlice, secondSlice, firstSlice, delimiter, firstSlice].flatMap { [0, 0, 1] + $0 }
        let split = AccessUnitSplitter.accessUnits(in: stream, codec: .h264)
        let expected: [[[UInt8]]] = [[firstSlice, secondSlice], [firstSlice], [delimiter, firstSlice]]
        #expect(split.map { $0.map { Array($0) } } == expected)
    }
}
