import SDP

/// The offer a publisher posts to a WHIP endpoint (RFC 9725 section 4.2): a `sendonly` section for each track of
/// a source the browser world takes as it is — H.264 (packetization mode 1, the source's profile) and H.265 video,
/// Opus, G.711 and G.722 audio — in the source's own payload types, bundled on one transport with rtcp-mux, with
/// our ICE credentials, host candidates and certificate fingerprint, and `a=setup:actpass` (RFC 8842: the answer
/// picks the DTLS roles). A track it cannot send (Motion JPEG, AAC, which an SFU takes only as Opus) is left out
/// with the reason (``refusals``).
@_spi(SansIO) public struct WHIPOffer: Sendable, Hashable {
    /// A section of the offer: the source track it carries, in its payload type, from its SSRC.
    public struct Track: Sendable, Hashable {
        /// The section's index, also its `a=mid`.
        public var section: Int
        public var sourceTrack: Int
        public var payloadType: UInt8
        public var ssrc: UInt32
    }

    public let tracks: [Track]
    /// Why each source track left out was (by its index).
    public let refusals: [Int: String]
    /// The SDP offer.
    public let text: String

    /// Offers the tracks of `formats` (a source's) with our ICE credentials, our certificate's SDP fingerprint
    /// (`DTLSIdentity.sdpFingerprint`) and where we listen.
    /// - Throws: ``WebRTCError`` when no track can be offered.
    public init(
        formats: [MediaFormat], iceUsernameFragment: String, icePassword: String, fingerprint: String,
        candidates: [WebRTCAnswer.Candidate], sessionID: UInt64 = UInt64.random(in: 1...(1 << 62))
    ) throws(WebRTCError) {
        var tracks: [Track] = []
        var refusals: [Int: String] = [:]
        var generator = SystemRandomNumberGenerator()
        for (index, format) in formats.enumerated() {
            if let reason = Self.refusal(format) {
                refusals[index] = reason
                continue
            }
            tracks.append(
                Track(
                    section: tracks.count, sourceTrack: index, payloadType: format.payloadType,
                    ssrc: UInt32.random(in: 1...UInt32.max, using: &generator)))
        }
        guard !tracks.isEmpty else {
            let reasons = refusals.sorted { $0.key < $1.key }.map(\.value).joined(separator: "; ")
            throw WebRTCError("nothing of the source can be published: \(reasons)")
        }
        self.tracks = tracks
        self.refusals = refusals
        let port = candidates.first?.port ?? 9
        let address = candidates.first?.address ?? "0.0.0.0"
        let family = address.contains(":" as Character) ? "IP6" : "IP4"
        var lines = [
            "v=0", "o=- \(sessionID) 2 IN \(family) \(address)", "s=swift-rtp", "t=0 0",
            "a=group:BUNDLE " + tracks.map { "\($0.section)" }.joined(separator: " "), "a=msid-semantic: WMS swift-rtp",
        ]
        for track in tracks {
            let format = formats[track.sourceTrack]
            lines += [
                "m=\(format.kindName) \(port) UDP/TLS/RTP/SAVPF \(track.payloadType)", "c=IN \(family) \(address)",
                "a=mid:\(track.section)", "a=sendonly", "a=rtcp-mux", "a=ice-ufrag:\(iceUsernameFragment)",
                "a=ice-pwd:\(icePassword)", "a=ice-options:trickle", "a=fingerprint:\(fingerprint)",
                "a=setup:actpass",
            ]
            lines += Self.codecLines(format)
            lines += SessionLines.stream(sourceTrack: track.sourceTrack, ssrc: track.ssrc)
            lines += SessionLines.candidates(candidates)
        }
        text = lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Why `format` cannot be published as it is; nil when it can.
    static func refusal(_ format: MediaFormat) -> String? {
        switch format {
        case .video(let video):
            switch video.codec {
            case .h264 where video.packetizationMode == 1 || video.packetizationMode == 0: return nil
            case .h265: return nil
            default: return "\(video.codec) video is not sent over WebRTC (H.264 and H.265 are)"
            }
        case .audio(let audio):
            switch audio.codec {
            case .opus, .pcmu, .pcma, .g722: return nil
            default: return "\(audio.encodingName) audio is not sent over WebRTC as it is (Opus, G.711 and G.722 are)"
            }
        case .data:
            return "data tracks are not published"
        }
    }

    /// A track's `a=rtpmap`, `a=fmtp` and the feedback asked for.
    static func codecLines(_ format: MediaFormat) -> [String] {
        let type = format.payloadType
        switch format {
        case .video(let video):
            var lines = ["a=rtpmap:\(type) \(video.codec == .h265 ? "H265" : "H264")/90000"]
            if video.codec == .h264 {
                lines.append(
                    "a=fmtp:\(type) level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=\(video.profileLevelID ?? "42e01f")"
                )
            }
            return lines + ["a=rtcp-fb:\(type) nack", "a=rtcp-fb:\(type) nack pli", "a=rtcp-fb:\(type) ccm fir"]
        case .audio(let audio):
            let name = audio.codec == .opus ? "opus" : audio.encodingName
            let channels = audio.codec == .opus ? "/2" : ""
            return ["a=rtpmap:\(type) \(name)/\(audio.clockRate)\(channels)"]
        case .data:
            return []
        }
    }
}
