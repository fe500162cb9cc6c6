import FFmpegDecoding
import H26x
import JPEG
import MediaPipeline
import SDP
import Testing
import VideoDecoding

/// The Motion JPEG depacketizer on captures of real senders (GStreamer's jpegenc ! rtpjpegpay, cjpeg's
/// pictures with restart markers through rtpjpegpay, FFmpeg's RTP muxer), decoded by libavcodec through the
/// library's decoder, against the pictures each sender wrote as it sent them, decoded by libavcodec
/// (expected/<capture>.sent-i420.md5).
@Suite struct MJPEGFixtureTests {
    static let captures = [
        "mjpeg-420-gst", "mjpeg-422-gst", "mjpeg-2560-gst", "mjpeg-restart-gst", "mjpeg-q50-gst", "mjpeg-ffmpeg",
    ]

    @Test(arguments: captures)
    func framesEqualTheSendersOwnPictures(capture: String) throws {
        let sent = try MJPEGFixtures.md5s(capture, "sent")
        #expect(sent.count >= 6)
        let (units, depacketizer) = try MJPEGFixtures.units(capture, format: try MJPEGFixtures.format(capture))
        let statistics = try #require(depacketizer?.jpegDepacketizer?.statistics)
        var expected = JPEGDepacketizer.Statistics()
        expected.pictures = sent.count
        #expect(statistics == expected)
        #expect(units.allSatisfy { $0.codec == .jpeg && $0.isKeyframe && $0.lostPackets == 0 })
        #expect(units.allSatisfy { $0.jpeg?.prefix(2).elementsEqual([0xFF, 0xD8]) == true })
        #expect(units.allSatisfy { $0.jpeg?.suffix(2).elementsEqual([0xFF, 0xD9]) == true })
        let decoded = try MJPEGFixtures.decode(units)
        #expect(decoded.md5s == sent)
        // JPEG is full range, 4:2:2 converted too; every picture is its own keyframe.
        #expect(decoded.frames.allSatisfy { $0.isFullRange && $0.isKeyframe && !$0.mayBeDamaged })
        // One picture per 1/15 s at 90 kHz (FFmpeg's muxer stamps from its wall clock: close to it).
        let steps = zip(units, units.dropFirst()).map { Int($1.timestamp) - Int($0.timestamp) }
        #expect(steps.allSatisfy { abs($0 - 6000) <= (capture == "mjpeg-ffmpeg" ? 600 : 1) }, "\(steps)")
    }

    /// The 2560-pixel-wide pictures: the header's 8-bit width cannot say 2560 (GStreamer writes 0), the SDP's
    /// a=x-dimensions does. Without it the pictures are refused with a reason, not guessed.
    @Test func aWidthAbove2040ComesFromTheSDP() throws {
        let format = try #require(try MJPEGFixtures.format("mjpeg-2560-gst")?.videoFormat)
        #expect(format.pictureSize?.width == 2560 && format.pictureSize?.height == 64)
        let decoded = try MJPEGFixtures.decode(try MJPEGFixtures.units("mjpeg-2560-gst", format: .video(format)).units)
        #expect(decoded.frames.allSatisfy { $0.width == 2560 && $0.height == 64 })

        var unsized = format
        unsized.pictureSize = nil
        let (units, depacketizer) = try MJPEGFixtures.units("mjpeg-2560-gst", format: .video(unsized))
        #expect(units.isEmpty)
        let jpeg = try #require(depacketizer?.jpegDepacketizer)
        #expect(jpeg.statistics.droppedPictures == 6)
        #expect(jpeg.lastError?.reason.contains("a=x-dimensions") == true)
    }

    /// Q 1-99: no tables in band, the receiver computes RFC 2435's (jpeg_tables.py removed libjpeg's
    /// quality-50 tables after checking they are the RFC's Q=50 ones). Q 200: the tables come with the first
    /// picture only and are cached for that Q.
    @Test(arguments: ["mjpeg-q50-gst-rfc-tables", "mjpeg-q50-gst-cached-tables"])
    func computedAndCachedTablesGiveTheSamePictures(capture: String) throws {
        let sent = try MJPEGFixtures.md5s(capture, "sent")
        #expect(sent == (try MJPEGFixtures.md5s("mjpeg-q50-gst", "sent")))
        let (units, _) = try MJPEGFixtures.units(capture, format: try MJPEGFixtures.format("mjpeg-q50-gst"))
        #expect(try MJPEGFixtures.decode(units).md5s == sent)
    }

    /// Without an SDP, static payload type 26 is JPEG.
    @Test func aCaptureWithoutSDPIsToldJPEGByItsPayloadType() throws {
        let (units, depacketizer) = try MJPEGFixtures.units("mjpeg-420-gst", format: nil)
        #expect(depacketizer?.payload == .video(.jpeg))
        #expect(try MJPEGFixtures.decode(units).md5s == (try MJPEGFixtures.md5s("mjpeg-420-gst", "sent")))
    }

    /// Reordered and duplicated on the way: the reorder buffer puts the fragments back, every picture comes.
    @Test func reorderedAndDuplicatedPacketsGiveEveryPicture() throws {
        let format = try MJPEGFixtures.format("mjpeg-420-gst")
        let (units, _) = try MJPEGFixtures.units("mjpeg-420-gst-reordered-dup", format: format)
        #expect(try MJPEGFixtures.decode(units).md5s == (try MJPEGFixtures.md5s("mjpeg-420-gst", "sent")))
    }

    /// Packets dropped: a picture that lost a fragment is dropped whole, never spliced; every picture given is
    /// one the sender sent, in order, undamaged.
    @Test func aPictureThatLostAFragmentIsDroppedNotSpliced() throws {
        let sent = try MJPEGFixtures.md5s("mjpeg-420-gst", "sent")
        let (units, depacketizer) = try MJPEGFixtures.units(
            "mjpeg-420-gst-dropped", format: try MJPEGFixtures.format("mjpeg-420-gst"))
        let statistics = try #require(depacketizer?.jpegDepacketizer?.statistics)
        let decoded = try MJPEGFixtures.decode(units).md5s
        #expect(statistics.droppedPictures > 0)
        #expect(decoded.count + statistics.droppedPictures == sent.count)
        var remaining = sent[...]
        for md5 in decoded {
            let found = try #require(remaining.firstIndex(of: md5), "a decoded picture the sender never sent")
            remaining = remaining[(found + 1)...]
        }
    }

    /// Where the references disagree with the sender, and so with the library: FFmpeg's RTP demuxer does not
    /// read a=x-dimensions (no picture of the 2560-pixel-wide capture); GStreamer's
    /// depayloader reads FFmpeg's single 64-byte table as if chrominance had a table of its own (every picture
    /// differs) and caches no Q 128-254 tables (only the picture that carried them). Checked, so that the
    /// fixtures keep saying what the notes say.
    @Test func theReferenceDepayloadersAgreeWithTheSenderExceptWhereKnown() throws {
        let gstreamerWrong = ["mjpeg-ffmpeg", "mjpeg-q50-gst-cached-tables"]
        let ffmpegWrong = ["mjpeg-2560-gst"]
        for capture in Self.captures + ["mjpeg-q50-gst-rfc-tables", "mjpeg-q50-gst-cached-tables"] {
            let sent = try MJPEGFixtures.md5s(capture, "sent")
            let gstreamer = try MJPEGFixtures.md5s(capture, "gst-depay")
            let ffmpeg = try MJPEGFixtures.md5s(capture, "ffmpeg-depay")
            #expect((gstreamer == sent) == !gstreamerWrong.contains(capture), "\(capture)")
            #expect((ffmpeg == sent) == !ffmpegWrong.contains(capture), "\(capture)")
        }
    }
}
