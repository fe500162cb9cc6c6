@_spi(SansIO) import DTLS
import Foundation
@_spi(SansIO) import ICE
import PacketCapture
import RTP
import SDP
import SRTP
import Testing
@_spi(SansIO) import WebRTC

/// Offers made by headless Chromium (scripts/webrtc/capture-offer.py wrote Offers/chromium-recvonly.sdp: a
/// receive-only viewer of one video and one audio track, as a WHEP player posts) read and answered.
@Suite struct WebRTCAnswerTests {
    static let chromium = try! String(
        contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Offers/chromium-recvonly.sdp"),
        encoding: .utf8)
    /// Chromium's offer of a viewer that also sends audio (capture-offer.py --talk: the player page's `?talk`).
    static let chromiumTalking = try! String(
        contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Offers/chromium-talk.sdp"),
        encoding: .utf8)
    static let h264 = VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1, profileLevelID: "42e01f")
    static let pcmu = AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000)

    static func answer(_ offer: WebRTCOffer, _ formats: [MediaFormat], talkback: AudioFormat? = nil) throws
        -> WebRTCAnswer
    {
        try WebRTCAnswer(
            offer: offer, formats: formats, iceUsernameFragment: "LoCa", icePassword: "local-password-0123456789",
            fingerprint: "sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":"),
            candidates: [.init(address: "192.0.2.10", port: 40_000)], talkback: talkback, sessionID: 1)
    }

    /// A viewer that sends audio, to a server that takes talk in G.711: its audio section is answered `sendrecv`
    /// with the offer's PCMU first (what the browser sends in) and the source's audio's payload type after it
    /// (AAC, re-encoded to Opus); a source without audio answers it `recvonly`, in PCMU alone, and bundles it.
    @Test func aViewerThatTalksIsAskedForTheTalkbacksCodec() throws {
        let offer = try WebRTCOffer(Self.chromiumTalking)
        #expect(offer.sections.map(\.sends) == [false, true])
        let aac = AudioFormat(codec: .aac, payloadType: 97, clockRate: 48_000, channels: 2)
        let answer = try Self.answer(offer, [.video(Self.h264), .audio(aac)], talkback: Self.pcmu)
        let talk = try #require(answer.talk)
        let opus = try #require(offer.sections[1].codecs.first { $0.name == "OPUS" })
        #expect(talk.section == 1 && talk.payloadType == 0 && answer.talkRefusal == nil)
        let audio = try #require(answer.tracks.first { $0.sourceTrack == 1 })
        #expect(audio.transcodedToOpus && audio.payloadType == opus.payloadType)
        let sdp = try SessionDescription(answer.text)
        #expect(sdp.media[1].payloadTypes == [0, opus.payloadType])
        #expect(sdp.media[1].attributes.contains { $0.name == "sendrecv" })
        #expect(sdp.media[1].rtpMap(for: 0)?.encodingName == "PCMU")

        let videoOnly = try Self.answer(offer, [.video(Self.h264)], talkback: Self.pcmu)
        let listening = try SessionDescription(videoOnly.text)
        #expect(videoOnly.talk?.payloadType == 0 && videoOnly.refusals.isEmpty)
        #expect(listening.media[1].payloadTypes == [0] && listening.media[1].port == 40_000)
        #expect(listening.media[1].attributes.contains { $0.name == "recvonly" })
        #expect(listening.attributes.first { $0.name == "group" }?.value == "BUNDLE 0 1")
    }

    /// Offers made by headless Firefox (Debian's firefox-esr 153, scripts/webrtc/capture-offer-firefox.py): it
    /// offers VP8, VP9 and AV1 but no H.264 (Firefox fetches its H.264 codec, OpenH264, at run time, and this one
    /// has none). An H.264 and G.711 source: the video is refused with the reason, the G.711 answered in the
    /// offer's PCMU, bundled alone; the offer that talks is answered in PCMU both ways.
    @Test func firefoxsOffersAreAnswered() throws {
        let listening = try WebRTCOffer(try Self.offer("firefox-recvonly.sdp"))
        #expect(listening.sections.map(\.kind) == ["video", "audio"])
        #expect(!listening.sections[0].codecs.contains { $0.name == "H264" })
        let answer = try Self.answer(listening, [.video(Self.h264), .audio(Self.pcmu)])
        #expect(answer.tracks.map(\.sourceTrack) == [1] && answer.tracks.first?.payloadType == 0)
        #expect(answer.refusals[0]?.contains("H.264") == true, "\(answer.refusals)")
        let sdp = try SessionDescription(answer.text)
        #expect(sdp.media.map(\.port) == [0, 40_000])
        #expect(sdp.attributes.first { $0.name == "group" }?.value == "BUNDLE \(listening.sections[1].mid)")

        let talking = try WebRTCOffer(try Self.offer("firefox-talk.sdp"))
        let both = try Self.answer(talking, [.video(Self.h264), .audio(Self.pcmu)], talkback: Self.pcmu)
        #expect(both.talk?.payloadType == 0 && both.tracks.first?.payloadType == 0)
        let bothSDP = try SessionDescription(both.text)
        #expect(bothSDP.media[1].payloadTypes == [0] && bothSDP.media[1].attributes.contains { $0.name == "sendrecv" })
    }

    static func offer(_ name: String) throws -> String {
        try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "Offers/\(name)"),
            encoding: .utf8)
    }

    /// A talkback in a codec the viewer does not send (AAC) lets nobody talk and says why; the viewer still plays
    /// what it receives. A viewer that does not send audio is not told anything; a server without a talkback
    /// answers a talking offer as it answers any other.
    @Test func aViewerThatCannotTalkStillPlays() throws {
        let offer = try WebRTCOffer(Self.chromiumTalking)
        let aac16 = AudioFormat(codec: .aac, payloadType: 96, clockRate: 16_000)
        let answer = try Self.answer(offer, [.video(Self.h264), .audio(Self.pcmu)], talkback: aac16)
        #expect(answer.talk == nil)
        #expect(answer.talkRefusal?.contains("MPEG4-GENERIC/16000") == true, "\(answer.talkRefusal ?? "")")
        let sdp = try SessionDescription(answer.text)
        #expect(sdp.media[1].payloadTypes == [0] && sdp.media[1].attributes.contains { $0.name == "sendonly" })
        let listener = try Self.answer(try WebRTCOffer(Self.chromium), [.video(Self.h264)], talkback: Self.pcmu)
        #expect(listener.talk == nil && listener.talkRefusal == nil)
        let withoutTalkback = try Self.answer(offer, [.video(Self.h264), .audio(Self.pcmu)])
        #expect(withoutTalkback.talk == nil && withoutTalkback.text.contains("a=sendonly\r\n"))
        #expect(!withoutTalkback.text.contains("sendrecv") && !withoutTalkback.text.contains("recvonly"))
    }

    @Test func chromiumsOfferReads() throws {
        let offer = try WebRTCOffer(Self.chromium)
        #expect(offer.usernameFragment.count >= 4 && offer.password.count >= 22)
        #expect(offer.fingerprint.count == 32 && offer.setup == "actpass")
        #expect(offer.sections.map(\.kind) == ["video", "audio"])
        #expect(offer.sections.allSatisfy { $0.receives && !$0.sends })
        let h264 = offer.sections[0].codecs.filter { $0.name == "H264" }
        #expect(
            h264.contains {
                $0.parameters["profile-level-id"] == "42e01f" && $0.parameters.integer("packetization-mode") == 1
            })
    }

    /// H.264 in the offer's payload type of the source's profile, packetization mode 1; G.711 in the offer's PCMU;
    /// the answer reads back (our SDP reader) with the same payload types, passive DTLS, ICE-lite and candidates.
    @Test func anH264AndG711SourceIsAnsweredInTheOffersPayloadTypes() throws {
        let offer = try WebRTCOffer(Self.chromium)
        let answer = try Self.answer(offer, [.video(Self.h264), .audio(Self.pcmu)])
        let video = try #require(answer.tracks.first { $0.sourceTrack == 0 })
        let offered = try #require(offer.sections[0].codecs.first { $0.payloadType == video.payloadType })
        #expect(offered.name == "H264" && offered.parameters["profile-level-id"] == "42e01f")
        #expect(offered.parameters.integer("packetization-mode") == 1 && video.nack)
        let audio = try #require(answer.tracks.first { $0.sourceTrack == 1 })
        #expect(audio.payloadType == 0 && answer.refusals.isEmpty && answer.notes.isEmpty)
        let sdp = try SessionDescription(answer.text)
        #expect(sdp.attributes.contains { $0.name == "ice-lite" })
        #expect(sdp.attributes.first { $0.name == "group" }?.value == "BUNDLE 0 1")
        #expect(sdp.media.map(\.payloadTypes) == [[video.payloadType], [0]])
        #expect(sdp.media.map(\.port) == [40_000, 40_000])
        for media in sdp.media {
            #expect(media.attributes.contains { $0.name == "setup" && $0.value == "passive" })
            #expect(
                media.attributes.contains {
                    $0.name == "candidate" && $0.value == "1 1 udp 2130706431 192.0.2.10 40000 typ host"
                })
            #expect(
                media.attributes.contains { $0.name == "sendonly" }
                    && media.attributes.contains { $0.name == "rtcp-mux" })
        }
        #expect(sdp.media[0].videoFormat?.profileLevelID == "42e01f")
    }

    /// AAC is answered in the offer's Opus, marked for re-encoding; what a browser cannot take is refused with the
    /// reason: LATM AAC, H.265 here (this Chromium offers none); a source of nothing it takes is no answer at all.
    @Test func whatTheOfferCannotTakeIsRefusedWithTheReason() throws {
        let offer = try WebRTCOffer(Self.chromium)
        let aac = AudioFormat(codec: .aac, payloadType: 97, clockRate: 48_000, channels: 2)
        let answer = try Self.answer(offer, [.video(Self.h264), .audio(aac)])
        let audio = try #require(answer.tracks.first { $0.sourceTrack == 1 })
        let opus = try #require(offer.sections[1].codecs.first { $0.name == "OPUS" })
        #expect(audio.transcodedToOpus && audio.payloadType == opus.payloadType)
        #expect(try SessionDescription(answer.text).media[1].rtpMap(for: opus.payloadType)?.encodingName == "opus")
        let latm = AudioFormat(codec: .aacLATM, payloadType: 97, clockRate: 48_000, channels: 2)
        let refused = try Self.answer(offer, [.video(Self.h264), .audio(latm)])
        #expect(refused.tracks.map(\.sourceTrack) == [0])
        #expect(refused.refusals[1]?.contains("MP4A-LATM") == true)
        #expect(try SessionDescription(refused.text).media[1].port == 0)
        let hevc = VideoFormat(codec: .h265, payloadType: 96)
        #expect(throws: WebRTCError.self) { try Self.answer(offer, [.video(hevc)]) }
        // Where the offer has H.265 (Chromium's offer with its payload type 49 made H.265, as Chrome writes one where
        // a hardware decoder is present: this machine's has none), it is passed through in that payload type.
        let withHEVC = Self.chromium.replacingOccurrences(
            of: "a=rtpmap:49 flexfec-03/90000", with: "a=rtpmap:49 H265/90000"
        )
        .replacingOccurrences(
            of: "a=fmtp:49 repair-window=10000000", with: "a=fmtp:49 level-id=93;profile-id=1;tier-flag=0;tx-mode=SRST")
        let hevcAnswer = try Self.answer(try WebRTCOffer(withHEVC), [.video(hevc)])
        #expect(hevcAnswer.tracks.map(\.payloadType) == [49])
        #expect(
            hevcAnswer.text.contains(
                "a=rtpmap:49 H265/90000\r\na=fmtp:49 level-id=93;profile-id=1;tier-flag=0;tx-mode=SRST"))
        // A High-profile source: the offer has no 64xxxx here, so the first packetization-mode=1 H.264, with a note.
        let high = VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1, profileLevelID: "640028")
        let answered = try Self.answer(offer, [.video(high)])
        #expect(answered.notes.count == 1 && answered.notes[0].contains("640028"))
    }

    @Test func offersThatAreNotWebRTCAreRefused() {
        #expect(throws: WebRTCError.self) { try WebRTCOffer("v=0\r\ns=-\r\nm=video 9 RTP/AVP 96\r\n") }
        let noFingerprint = Self.chromium.split(separator: "\r\n").filter { !$0.hasPrefix("a=fingerprint") }.joined(
            separator: "\r\n")
        #expect(throws: WebRTCError.self) { try WebRTCOffer(noFingerprint) }
        #expect(throws: WebRTCError.self) { try WebRTCOffer(String(repeating: "a=x\r\n", count: 20_000)) }
    }
}
