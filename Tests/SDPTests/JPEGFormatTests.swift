import RTP
import SDP
import Testing

/// The JPEG video formats of RFC 2435 as cameras describe them: by static payload type 26 alone, by an
/// `a=rtpmap`, with the size above 2040 pixels in `a=x-dimensions` or `a=framesize`.
@Suite struct JPEGFormatTests {
    static func format(_ media: String) throws -> VideoFormat? {
        try SessionDescription("v=0\r\no=- 0 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n" + media).media.first?.videoFormat
    }

    @Test func staticPayloadType26IsJPEGWithoutAnRTPMap() throws {
        let format = try #require(try Self.format("m=video 0 RTP/AVP 26\r\n"))
        #expect(format.codec == .jpeg && format.payloadType == 26 && format.clockRate == 90000)
        #expect(format.pictureSize == nil)
        #expect(try Self.format("m=video 0 RTP/AVP 25\r\n") == nil)
    }

    @Test func aDynamicPayloadTypeNamedJPEG() throws {
        let format = try #require(try Self.format("m=video 0 RTP/AVP 96\r\na=rtpmap:96 jpeg/90000\r\n"))
        #expect(format.codec == .jpeg && format.payloadType == 96)
    }

    @Test func theSizeFromXDimensionsOrFramesize() throws {
        let dimensions = try Self.format("m=video 0 RTP/AVP 26\r\na=x-dimensions:2560,1440\r\n")
        #expect(dimensions?.pictureSize?.width == 2560 && dimensions?.pictureSize?.height == 1440)
        let framesize = try Self.format("m=video 0 RTP/AVP 26\r\na=framesize:26 3840-2160\r\n")
        #expect(framesize?.pictureSize?.width == 3840 && framesize?.pictureSize?.height == 2160)
        // Another payload type's framesize, sides out of range, or not numbers: no size.
        for attribute in [
            "a=framesize:96 3840-2160", "a=x-dimensions:0,10", "a=x-dimensions:70000,10", "a=x-dimensions:a,b",
        ] {
            #expect(try Self.format("m=video 0 RTP/AVP 26\r\n\(attribute)\r\n")?.pictureSize == nil, "\(attribute)")
        }
    }

    @Test func anH264SectionIsUnchanged() throws {
        let format = try #require(
            try Self.format("m=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\na=fmtp:96 packetization-mode=1\r\n"))
        #expect(format.codec == .h264 && format.packetizationMode == 1 && format.pictureSize == nil)
    }
}
