import Testing

@testable import SDP

@Suite struct SessionDescriptionTests {
    static let camera = """
        v=0
        o=- 1 1 IN IP4 192.168.1.10
        s=Session streamed by "nessyMediaServer"
        t=0 0
        a=control:*
        a=range:npt=0-
        m=video 0 RTP/AVP 96
        a=rtpmap:96 H264/90000
        a=fmtp:96 profile-level-id=42C01E; packetization-mode=1; sprop-parameter-sets=Z0LAHtoCgL/lhAAAAwAE,aM48gA==
        a=control:trackID=1
        m=audio 0 RTP/AVP 0
        a=rtpmap:0 PCMU/8000
        a=control:trackID=2
        """

    @Test func readsSessionAndMediaSections() throws {
        let d = try SessionDescription(Self.camera)
        #expect(d.sessionName == "Session streamed by \"nessyMediaServer\"")
        #expect(d.control == "*")
        #expect(d.media.map(\.mediaType) == ["video", "audio"])
        #expect(d.media.map(\.control) == ["trackID=1", "trackID=2"])
        #expect(d.media[1].rtpMap(for: 0) == RTPMap(encodingName: "PCMU", clockRate: 8000, channels: nil))
        #expect(d.media[1].videoFormat == nil)
    }

    @Test func typesTheH264FormatParameters() throws {
        let format = try #require(try SessionDescription(Self.camera).media[0].videoFormat)
        #expect(format.codec == .h264)
        #expect(format.payloadType == 96)
        #expect(format.clockRate == 90000)
        #expect(format.packetizationMode == 1)
        #expect(format.profileLevelID == "42C01E")
        #expect(format.parameterSetAttributes.map(\.name) == ["sprop-parameter-sets"])
        #expect(format.parameterSetAttributes.first?.value == "Z0LAHtoCgL/lhAAAAwAE,aM48gA==")
        #expect(format.deinterleavingDepth == 0)
    }

    @Test func typesTheH265FormatParameters() throws {
        let text =
            "m=video 0 RTP/AVP 97\na=rtpmap:97 H265/90000\na=fmtp:97 sprop-vps=QAE=;sprop-sps=QgE=;sprop-pps=RAE=;sprop-max-don-diff=4;sprop-depack-buf-nalus=8\n"
        let format = try #require(try SessionDescription(text).media[0].videoFormat)
        #expect(format.codec == .h265)
        #expect(format.parameterSetAttributes.map(\.name) == ["sprop-vps", "sprop-sps", "sprop-pps"])
        #expect(format.maxDONDiff == 4)
        #expect(format.deinterleavingDepth == 8)
    }

    @Test func isLenientWhereCamerasAreSloppy() throws {
        // No v=, o= or s=; bare LF; an empty a=fmtp; an attribute without a value; stray spaces; lower case.
        let text =
            "m=video 0 RTP/AVP 96 \na=rtpmap:96 h264/90000\na=fmtp:96\na=recvonly\n\n  a=control:rtsp://cam/track1  \n"
        let d = try SessionDescription(text)
        let format = try #require(d.media[0].videoFormat)
        #expect(format.codec == .h264)
        #expect(format.packetizationMode == 0)
        #expect(d.media[0].control == "rtsp://cam/track1")
        #expect(d.media[0].attributes.contains { $0.name == "recvonly" && $0.value == nil })
    }

    @Test func crlfAndLFReadTheSame() throws {
        let lf = try SessionDescription(Self.camera)
        let crlf = try SessionDescription(Self.camera.split(separator: "\n").joined(separator: "\r\n"))
        #expect(lf == crlf)
    }

    @Test(arguments: ["v=0\nthis is not sdp", "m=video\n", "m=video x RTP/AVP 96\n", "=nothing\n"])
    func malformedLinesAreClearErrors(text: String) {
        let error = #expect(throws: SDPError.self) { try SessionDescription(text) }
        #expect(error?.description.hasPrefix("invalid SDP") == true)
    }

    @Test func sizeIsBounded() {
        let big = String(repeating: "a=x\n", count: SessionDescription.maxSize / 4 + 1)
        #expect(throws: SDPError.self) { try SessionDescription(big) }
        let media = String(repeating: "m=video 0 RTP/AVP 96\n", count: SessionDescription.maxMedia + 1)
        #expect(throws: SDPError.self) { try SessionDescription(media) }
    }

    @Test func keepsCryptoAttributes() throws {
        let text =
            "m=video 0 RTP/SAVP 96\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz\n"
        let media = try SessionDescription(text).media[0]
        #expect(media.transportProtocol == "RTP/SAVP")
        #expect(media.cryptoAttributes == ["1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz"])
    }
}

/// The writing side: what a server announces reads back as the same formats.
@Suite struct SessionDescriptionWriterTests {
    @Test func everyFormatAServerAnnouncesReadsBack() throws {
        var aac = AudioFormat(codec: .aac, payloadType: 97, clockRate: 48000, channels: 2)
        (aac.sizeLength, aac.indexLength, aac.indexDeltaLength, aac.mode, aac.config) = (13, 3, 3, "AAC-hbr", "1190")
        let formats: [MediaFormat] = [
            .video(
                VideoFormat(
                    codec: .h264, payloadType: 96, packetizationMode: 1, profileLevelID: "640028",
                    parameterSetAttributes: [("sprop-parameter-sets", "Z2QAKKzZQHgCJ+XARAAAAwAEAAADAMg8YMZY,aOvjyyLA")])
            ),
            .video(
                VideoFormat(
                    codec: .h265, payloadType: 98,
                    parameterSetAttributes: [
                        ("sprop-vps", "QAEMAf//"), ("sprop-sps", "QgEBAWAAAAMA"), ("sprop-pps", "RAHBcrRi"),
                    ])),
            .audio(aac),
            .audio(AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000)),
            .audio(AudioFormat(codec: .opus, payloadType: 111, clockRate: 48000, channels: 2)),
            .audio(AudioFormat.g726(payloadType: 112, bitsPerSample: 4)),
        ]
        let text = SessionDescription.text(describing: formats, sessionName: "test\r\nx=injected")
        let parsed = try SessionDescription(text)
        #expect(parsed.media.compactMap(\.mediaFormat) == formats)
        #expect(parsed.media.map(\.control) == (0..<formats.count).map { "trackID=\($0)" })
        #expect(parsed.sessionName == "testx=injected")
        #expect(!text.contains("\nx="))
    }
}
