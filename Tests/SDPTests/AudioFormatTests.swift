import Foundation
import Testing

@testable import SDP

/// Audio formats as real cameras describe them (their DESCRIBE answers in Fixtures/cameras, from
/// retina's test data): AAC with RFC 3640's fmtp in their spellings, G.711 by rtpmap or by static payload
/// type alone, Opus.
@Suite struct AudioFormatTests {
    static let cameras = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/cameras")

    /// The audio formats of a camera's answer, in the order of its media sections.
    static func audio(_ name: String) throws -> [AudioFormat?] {
        let text = try String(contentsOf: cameras.appendingPathComponent(name), encoding: .isoLatin1)
        let body = text.range(of: "v=0").map { String(text[$0.lowerBound...]) } ?? text
        return try SessionDescription(body).media.filter { $0.mediaType == "audio" }.map(\.audioFormat)
    }

    @Test func camerasAudioIsTyped() throws {
        // Dahua: AAC-hbr at 48 kHz, config 1188.
        let dahua = try #require(try Self.audio("dahua_describe_h264_aac_onvif.txt").first ?? nil)
        #expect(dahua.codec == .aac && dahua.payloadType == 97 && dahua.clockRate == 48000 && dahua.channels == 1)
        #expect((dahua.sizeLength, dahua.indexLength, dahua.indexDeltaLength) == (13, 3, 3))
        #expect(dahua.config == "1188" && dahua.mode == "AAC-hbr")
        // Reolink: a trailing "; profile=1;" with a blank.
        let reolink = try #require(try Self.audio("reolink_describe.txt").first ?? nil)
        #expect(reolink.clockRate == 16000 && reolink.config == "1408" && reolink.sizeLength == 13)
        // Ubiquiti: parameters in mixed case after blanks; then Opus with an empty fmtp.
        let ubiquiti = try Self.audio("ubiquiti_sdp.txt")
        #expect(ubiquiti.count == 2)
        #expect(ubiquiti[0]?.codec == .aac && ubiquiti[0]?.indexDeltaLength == 3 && ubiquiti[0]?.config == "1188")
        #expect(ubiquiti[1]?.codec == .opus && ubiquiti[1]?.clockRate == 48000 && ubiquiti[1]?.channels == 2)
        // Anpviz: mpeg4-generic on payload type 0 with a config alone: AAC-hbr's AU headers assumed.
        let anpviz = try #require(try Self.audio("anpviz_sdp.txt").first ?? nil)
        #expect(anpviz.codec == .aac && anpviz.payloadType == 0 && anpviz.channels == 2 && anpviz.sizeLength == 13)
        // G.711: by rtpmap (GW4089IP names PCMU on payload type 8: the rtpmap wins), or static types alone.
        #expect(try Self.audio("gw_main_describe.txt").first??.codec == .pcmu)
        #expect(try Self.audio("vstarcam_describe.txt").first??.codec == .pcma)
        #expect(try Self.audio("foscam_describe.txt").first??.codec == .pcmu)
        #expect(try Self.audio("h264dvr_describe.txt").first??.codec == .pcma)
        let bunny = try #require(try Self.audio("bunny_describe.txt").first ?? nil)
        #expect(bunny.clockRate == 12000 && bunny.channels == 2)
    }

    @Test func latmAndBoundsAndWhatIsNotAudio() throws {
        let text = """
            v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=x\r\nt=0 0\r\n\
            m=audio 0 RTP/AVP 98\r\na=rtpmap:98 MP4A-LATM/44100/2\r\na=fmtp:98 cpresent=0;config=400024203fc0;object=2\r\n\
            m=audio 0 RTP/AVP 99\r\na=rtpmap:99 mpeg4-generic/8000\r\na=fmtp:99 sizelength=99;indexlength=-4\r\n\
            m=audio 0 RTP/AVP 100\r\na=rtpmap:100 G723/8000\r\n\
            m=audio 0 RTP/AVP 11\r\n
            """
        let formats = try SessionDescription(text).media.map(\.audioFormat)
        #expect(formats[0]?.codec == .aacLATM && formats[0]?.muxConfigPresent == false)
        #expect(formats[0]?.config == "400024203fc0" && formats[0]?.channels == 2)
        #expect(formats[1]?.sizeLength == 32 && formats[1]?.indexLength == 0)  // bounded
        #expect(formats[2] == nil)  // a codec this library does not take
        #expect(formats[3]?.codec == .l16 && formats[3]?.clockRate == 44100 && formats[3]?.channels == 1)
        #expect(AudioCodec(encodingName: "mpeg4-GENERIC") == .aac)
    }

    /// G.722 by static payload type 9 (8000 Hz clock, 16 kHz samples) or by name; G.726 by its names, with
    /// the code word size and bit order they say; other G.726 rates are not G.726.
    @Test func g722AndG726() throws {
        let text = """
            v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=x\r\nt=0 0\r\n\
            m=audio 0 RTP/AVP 9\r\n\
            m=audio 0 RTP/AVP 96\r\na=rtpmap:96 g726-24/8000\r\n\
            m=audio 0 RTP/AVP 97\r\na=rtpmap:97 AAL2-G726-40/8000\r\n\
            m=audio 0 RTP/AVP 98\r\na=rtpmap:98 G726-48/8000\r\n\
            m=audio 0 RTP/AVP 99\r\na=rtpmap:99 G722/8000\r\n
            """
        let formats = try SessionDescription(text).media.map(\.audioFormat)
        #expect(formats[0]?.codec == .g722 && formats[0]?.clockRate == 8000 && formats[0]?.sampleRate == 16000)
        #expect(formats[1]?.codec == .g726 && formats[1]?.bitsPerSample == 3 && formats[1]?.packing == .rfc3551)
        #expect(formats[1]?.encodingName == "G726-24")
        #expect(formats[2]?.codec == .g726 && formats[2]?.bitsPerSample == 5 && formats[2]?.packing == .aal2)
        #expect(formats[2]?.encodingName == "AAL2-G726-40")
        #expect(formats[3] == nil)
        #expect(formats[4]?.codec == .g722 && formats[4]?.payloadType == 99)
    }
}
