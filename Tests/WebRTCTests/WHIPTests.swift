@_spi(SansIO) import DTLS
import Foundation
@_spi(SansIO) import ICE
import PacketCapture
import SDP
import Testing
@_spi(SansIO) import WebRTC

/// A publisher's offer and the answer it reads (WHIP, RFC 9725): the offer is read back by our SDP reader, and
/// aiortc (a second WebRTC stack, scripts/webrtc/aiortc-answer.py) answered it (Offers/whip-offer.sdp and
/// Offers/aiortc-whip-answer.sdp); that answer is read as the publisher needs it.
@Suite struct WHIPTests {
    static func file(_ name: String) throws -> String {
        try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "Offers/\(name)"),
            encoding: .utf8)
    }
    static let h264 = VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1, profileLevelID: "640028")
    static let pcmu = AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000)
    static let fingerprint = "sha-256 " + Array(repeating: "CD", count: 32).joined(separator: ":")

    /// H.264 and G.711 are offered as the source sends them (its payload types, its profile, packetization mode 1),
    /// each sendonly, bundled, actpass, with NACK and PLI asked for video; AAC and Motion JPEG are left out with
    /// the reason; a source of nothing publishable is an error that says why.
    @Test func theOfferCarriesWhatTheSourceSends() throws {
        let aac = AudioFormat(codec: .aac, payloadType: 97, clockRate: 48_000, channels: 2)
        let offer = try WHIPOffer(
            formats: [.video(Self.h264), .audio(aac), .audio(Self.pcmu)], iceUsernameFragment: "PubL",
            icePassword: "publisher-password-012345", fingerprint: Self.fingerprint,
            candidates: [.init(address: "192.0.2.7", port: 41_000)], sessionID: 7)
        #expect(offer.tracks.map(\.sourceTrack) == [0, 2] && offer.tracks.map(\.payloadType) == [96, 0])
        #expect(offer.refusals[1]?.contains("MPEG4-GENERIC") == true, "\(offer.refusals)")
        let sdp = try SessionDescription(offer.text)
        #expect(sdp.attributes.first { $0.name == "group" }?.value == "BUNDLE 0 1")
        #expect(sdp.media.map(\.payloadTypes) == [[96], [0]] && sdp.media.map(\.port) == [41_000, 41_000])
        #expect(sdp.media[0].videoFormat?.profileLevelID == "640028")
        #expect(sdp.media[0].attributes.values(of: "rtcp-fb").contains("96 nack pli"))
        for media in sdp.media {
            #expect(media.attributes.contains { $0.name == "sendonly" })
            #expect(media.attributes.value(of: "setup") == "actpass")
            #expect(media.attributes.value(of: "candidate") == "1 1 udp 2130706431 192.0.2.7 41000 typ host")
        }
        let jpeg = VideoFormat(codec: .jpeg, payloadType: 26)
        #expect(throws: WebRTCError.self) {
            try WHIPOffer(
                formats: [.video(jpeg), .audio(aac)], iceUsernameFragment: "PubL", icePassword: "p",
                fingerprint: Self.fingerprint, candidates: [])
        }
    }

    /// aiortc's answer to our offer: its credentials, its candidates (IPv4 and IPv6 host), the SHA-256 of its
    /// three fingerprints, `a=setup:active` (it is the DTLS client, we the server), both sections taken in our
    /// payload types.
    @Test func aiortcsAnswerIsRead() throws {
        let offer = try SessionDescription(try Self.file("whip-offer.sdp"))
        let answer = try WHIPAnswer(try Self.file("aiortc-whip-answer.sdp"))
        #expect(answer.credentials.usernameFragment == "9Zop" && answer.credentials.password.count == 22)
        #expect(answer.candidates.count == 2 && answer.candidates.allSatisfy { $0.port != 0 })
        let host = try #require(IPAddress(parsing: "192.0.2.2"))
        #expect(answer.candidates.first == SocketAddress(address: host, port: 60_186))
        #expect(answer.fingerprint.count == 32 && answer.fingerprint.first == 0x7D)
        #expect(!answer.weAreDTLSClient)
        #expect(answer.sections.map(\.payloadType) == offer.media.map { $0.payloadTypes.first })
        #expect(answer.sections.allSatisfy { $0.isAccepted })
    }

    /// What an answer must hold, said when it does not: ICE credentials, a SHA-256 fingerprint, a DTLS role (not
    /// actpass); candidates that are not UDP, not component 1, or a name (mDNS) are left out; a refused section
    /// (port 0) is not accepted.
    @Test func anUnusableAnswerSaysWhy() throws {
        let good = try Self.file("aiortc-whip-answer.sdp")
        func without(_ prefix: String) -> String {
            good.split(separator: "\r\n").filter { !$0.hasPrefix(prefix) }.joined(separator: "\r\n") + "\r\n"
        }
        for (text, words) in [
            (without("a=ice-pwd"), "ice-pwd"), (without("a=fingerprint:sha-256"), "fingerprint"),
            (good.replacingOccurrences(of: "a=setup:active", with: "a=setup:actpass"), "actpass"),
        ] {
            let error = #expect(throws: WebRTCError.self) { try WHIPAnswer(text) }
            #expect(error?.reason.contains(words) == true, "\(String(describing: error))")
        }
        #expect(WHIPAnswer.candidate("1 1 tcp 1518280447 192.0.2.2 9 typ host tcptype active") == nil)
        #expect(WHIPAnswer.candidate("1 2 udp 2130706430 192.0.2.2 60187 typ host") == nil)
        #expect(WHIPAnswer.candidate("1 1 udp 2130706431 3f1c2a.local 60186 typ host") == nil)
        let refused = try WHIPAnswer(good.replacingOccurrences(of: "m=audio 60186", with: "m=audio 0"))
        #expect(refused.sections.map(\.isAccepted) == [true, false])
    }
}
