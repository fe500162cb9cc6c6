import SDP

/// The answer to a browser's offer (RFC 8829, RFC 9725's WHEP): for each offered section, the source track it
/// gets (in the offer's own payload type) or why it gets none; the text to return; what the sending side needs.
///
/// Chosen as an ICE-lite, DTLS-passive answerer with every section bundled on one transport (BUNDLE, rtcp-mux):
/// - video: H.264 passed through as the source sent it, in a packetization-mode=1 payload type of the offer whose
///   `profile-level-id` names the source's profile (the first such); an offer without that profile gets the first
///   packetization-mode=1 H.264 and a note (a browser's decoder is a general one; RFC 6184's level asymmetry);
///   H.265 passed through where the offer has it (browsers with a decoder for it offer it); anything else (JPEG,
///   H.265 to a browser that offers none) is refused with the reason;
/// - audio: G.711 passed through when the offer has it at 8 kHz, and Opus; AAC, G.722, G.726 and L16 marked
///   ``Track/transcodedToOpus`` in the offer's Opus payload type (the server re-encodes them); LATM AAC and
///   anything else refused with the reason;
/// - every other section (data channels) refused;
/// - talk (when the server takes it, ``Talk``): the first audio section the offer sends on, in the offer's payload
///   type of the talkback's codec, answered `sendrecv` (or `recvonly` when the source has no audio for it).
@_spi(SansIO) public struct WebRTCAnswer: Sendable {
    /// A section that carries a source track.
    public struct Track: Sendable, Hashable {
        /// The offer's section (its index and mid).
        public var section: Int
        public var mid: String
        /// The source track it carries.
        public var sourceTrack: Int
        /// The payload type the offer gave the codec: every packet sent is rewritten to it.
        public var payloadType: UInt8
        /// The SSRC announced for it.
        public var ssrc: UInt32
        /// Whether the offer asked for NACK on it (RFC 4585).
        public var nack: Bool
        /// Whether the source's audio must be re-encoded to Opus for it (``payloadType`` is then the offer's Opus).
        public var transcodedToOpus: Bool
    }

    /// The section a viewer talks on: its audio, in the talkback's codec (a relayed camera's backchannel), comes
    /// to us in the offer's payload type for it.
    public struct Talk: Sendable, Hashable {
        public var section: Int
        public var mid: String
        public var payloadType: UInt8
        /// What the viewer's packets carry: the talkback's format.
        public var format: AudioFormat
    }

    /// Where the viewer reaches us: one UDP port on each host address.
    public struct Candidate: Sendable, Hashable {
        public var address: String
        public var port: UInt16

        public init(address: String, port: UInt16) {
            self.address = address
            self.port = port
        }
    }

    public let tracks: [Track]
    /// Why each refused section was refused, by section index.
    public let refusals: [Int: String]
    /// What was chosen that a user may want to know (a profile the offer lacked).
    public let notes: [String]
    /// Where the viewer talks; nil when the server takes no talk or the offer sends no audio it can take
    /// (``talkRefusal`` says why).
    public let talk: Talk?
    /// Why a viewer that sends audio cannot talk, when the server takes talk.
    public let talkRefusal: String?
    /// The SDP answer.
    public let text: String

    /// Answers `offer` with the tracks of `formats` (a source's), our ICE credentials, our certificate's SDP
    /// fingerprint (``DTLS/DTLSIdentity/sdpFingerprint``) and where we listen; with `talkback`, the format the
    /// server takes from a viewer that talks (a browser sends G.711, G.722 and Opus).
    public init(
        offer: WebRTCOffer, formats: [MediaFormat], iceUsernameFragment: String, icePassword: String,
        fingerprint: String,
        candidates: [Candidate], talkback: AudioFormat? = nil, sessionID: UInt64 = UInt64.random(in: 1...(1 << 62))
    ) throws(WebRTCError) {
        var tracks: [Track] = []
        var refusals: [Int: String] = [:]
        var notes: [String] = []
        var used = Set<Int>()
        var generator = SystemRandomNumberGenerator()
        (talk, talkRefusal) = talkback.map { Self.talk($0, offer) } ?? (nil, nil)
        for (index, section) in offer.sections.enumerated() {
            guard section.receives else {
                if talk?.section != index {
                    refusals[index] = "the offer does not receive on it (\(section.kind), mid \(section.mid))"
                }
                continue
            }
            let candidates = formats.indices.filter { !used.contains($0) && formats[$0].kindName == section.kind }
            guard let source = candidates.first else {
                if talk?.section != index { refusals[index] = "the source has no \(section.kind) track for it" }
                continue
            }
            switch Self.choose(formats[source], section) {
            case .success(let choice):
                used.insert(source)
                if let note = choice.note { notes.append(note) }
                let nack = section.feedback[choice.payloadType]?.contains("nack") ?? false
                tracks.append(
                    Track(
                        section: index, mid: section.mid, sourceTrack: source, payloadType: choice.payloadType,
                        ssrc: UInt32.random(in: 1...UInt32.max, using: &generator), nack: nack,
                        transcodedToOpus: choice.transcoded))
            case .failure(let reason):
                if talk?.section == index {
                    notes.append("the source's audio is not sent on the section the viewer talks on: \(reason.reason)")
                } else {
                    refusals[index] = reason.reason
                }
            }
        }
        guard !tracks.isEmpty || talk != nil else {
            let reasons = refusals.sorted { $0.key < $1.key }.map(\.value).joined(separator: "; ")
            throw WebRTCError("nothing of the offer can be sent: \(reasons)")
        }
        self.tracks = tracks
        self.refusals = refusals
        self.notes = notes
        text = Self.write(
            offer: offer, formats: formats, tracks: tracks, talk: talk, ufrag: iceUsernameFragment,
            pwd: icePassword, fingerprint: fingerprint, candidates: candidates, sessionID: sessionID)
    }

    /// The first audio section `offer` sends on, in its payload type of `format`'s codec; or why there is none.
    static func talk(_ format: AudioFormat, _ offer: WebRTCOffer) -> (Talk?, String?) {
        let sending = offer.sections.indices.filter { offer.sections[$0].kind == "audio" && offer.sections[$0].sends }
        guard let index = sending.first else { return (nil, nil) }  // the viewer does not talk
        let section = offer.sections[index]
        let name = format.encodingName.uppercased()
        guard let codec = section.codecs.first(where: { $0.name == name && $0.clockRate == format.clockRate }) else {
            let offered = Set(section.codecs.map(\.name)).sorted().joined(separator: ", ")
            return (
                nil,
                "the talkback takes \(format.encodingName)/\(format.clockRate) and the viewer sends none (it offers \(offered))"
            )
        }
        return (Talk(section: index, mid: section.mid, payloadType: codec.payloadType, format: format), nil)
    }

    /// What a section carries of a source track: the offer's payload type, a note, whether it is re-encoded.
    struct Choice {
        var payloadType: UInt8
        var note: String? = nil
        var transcoded = false
    }

    /// The audio codecs the server re-encodes to Opus for browsers (FFmpeg decodes them; their format says all).
    public static let transcodedToOpus: Set<AudioCodec> = [.aac, .g722, .g726, .l16]

    /// The offer's payload type for `format` in `section`, or why there is none.
    static func choose(_ format: MediaFormat, _ section: WebRTCOffer.Section) -> Result<Choice, WebRTCError> {
        switch format {
        case .video(let video):
            if video.codec == .h265 {
                // Offered by browsers that decode it (Safari; Chrome with a hardware decoder): passed through.
                guard let h265 = section.codecs.first(where: { $0.name == "H265" }) else {
                    return .failure(
                        WebRTCError(
                            "the source's video is H.265 and the offer takes none (its browser decodes no H.265)"))
                }
                return .success(Choice(payloadType: h265.payloadType))
            }
            guard video.codec == .h264 else {
                return .failure(
                    WebRTCError("the source's video is \(video.codec), which this bridge does not send to browsers"))
            }
            let h264 = section.codecs.filter {
                $0.name == "H264" && ($0.parameters.integer("packetization-mode") ?? 0) == 1
            }
            guard let first = h264.first else {
                return .failure(WebRTCError("the offer takes no H.264 in packetization mode 1"))
            }
            guard let profile = video.profileLevelID.flatMap(H264Profile.init) else {
                return .success(Choice(payloadType: first.payloadType))
            }
            if let same = h264.first(where: {
                $0.parameters["profile-level-id"].flatMap(H264Profile.init)?.matches(profile) == true
            }) {
                return .success(Choice(payloadType: same.payloadType))
            }
            let offered = h264.compactMap { $0.parameters["profile-level-id"] }.joined(separator: ", ")
            return .success(
                Choice(
                    payloadType: first.payloadType,
                    note:
                        "the offer has no H.264 of the source's profile \(video.profileLevelID ?? "") (it has \(offered)): sent as payload type \(first.payloadType)"
                ))
        case .audio(let audio):
            let opus = section.codecs.first { $0.name == "OPUS" && $0.clockRate == 48000 }
            if (audio.codec == .pcmu || audio.codec == .pcma) && audio.clockRate == 8000 && audio.channels == 1 {
                let name = audio.codec == .pcmu ? "PCMU" : "PCMA"
                if let codec = section.codecs.first(where: { $0.name == name && $0.clockRate == 8000 }) {
                    return .success(Choice(payloadType: codec.payloadType))
                }
                guard let opus else { return .failure(WebRTCError("the offer takes neither \(name) nor Opus")) }
                return .success(
                    Choice(
                        payloadType: opus.payloadType, note: "the offer takes no \(name): re-encoded to Opus",
                        transcoded: true))
            }
            if audio.codec == .opus {
                guard let opus else { return .failure(WebRTCError("the offer takes no Opus")) }
                return .success(Choice(payloadType: opus.payloadType))
            }
            guard Self.transcodedToOpus.contains(audio.codec) else {
                return .failure(
                    WebRTCError(
                        "the source's audio is \(audio.codec), which this bridge neither passes to browsers nor re-encodes"
                    ))
            }
            guard let opus else {
                return .failure(WebRTCError("the offer takes no Opus, which \(audio.codec) is re-encoded to"))
            }
            return .success(Choice(payloadType: opus.payloadType, transcoded: true))
        case .data:
            return .failure(WebRTCError("data tracks are not sent to browsers"))
        }
    }

    static func write(
        offer: WebRTCOffer, formats: [MediaFormat], tracks: [Track], talk: Talk?, ufrag: String, pwd: String,
        fingerprint: String, candidates: [Candidate], sessionID: UInt64
    ) -> String {
        let port = candidates.first?.port ?? 9
        let address = candidates.first?.address ?? "0.0.0.0"
        let family = address.contains(":" as Character) ? "IP6" : "IP4"
        let bundled = offer.sections.indices.filter { index in
            tracks.contains { $0.section == index } || talk?.section == index
        }
        var lines = [
            "v=0", "o=- \(sessionID) 2 IN \(family) \(address)", "s=swift-rtp", "t=0 0", "a=ice-lite",
            "a=group:BUNDLE " + bundled.map { offer.sections[$0].mid }.joined(separator: " "),
            "a=msid-semantic: WMS swift-rtp",
        ]
        for (index, section) in offer.sections.enumerated() {
            let track = tracks.first { $0.section == index }
            let talks = talk?.section == index ? talk : nil
            guard track != nil || talks != nil else {
                // Refused: port 0, the section's first payload type, as RFC 8829 section 5.3.1 writes it.
                let type = section.codecs.first.map { "\($0.payloadType)" } ?? "0"
                let proto = section.kind == "application" ? "UDP/DTLS/SCTP" : "UDP/TLS/RTP/SAVPF"
                lines += [
                    "m=\(section.kind) 0 \(proto) \(section.kind == "application" ? "webrtc-datachannel" : type)",
                    "c=IN IP4 0.0.0.0", "a=mid:\(section.mid)", "a=inactive",
                ]
                continue
            }
            // The talk codec first: a browser sends in the first payload type of the answer's list.
            let types = [talks?.payloadType, track?.payloadType].compactMap { $0 }.reduce(into: [UInt8]()) {
                if !$0.contains($1) { $0.append($1) }
            }
            let direction = track == nil ? "recvonly" : talks == nil ? "sendonly" : "sendrecv"
            lines += [
                "m=\(section.kind) \(port) UDP/TLS/RTP/SAVPF " + types.map { "\($0)" }.joined(separator: " "),
                "c=IN \(family) \(address)", "a=mid:\(section.mid)", "a=\(direction)", "a=rtcp-mux",
                "a=ice-ufrag:\(ufrag)", "a=ice-pwd:\(pwd)", "a=fingerprint:\(fingerprint)", "a=setup:passive",
            ]
            for type in types {
                guard let codec = section.codecs.first(where: { $0.payloadType == type }) else { continue }
                lines += codecLines(
                    codec, sending: track.flatMap { $0.payloadType == type ? formats[$0.sourceTrack] : nil })
            }
            if let track {
                // The feedback the server acts on, where the offer asked for it.
                for kind in ["nack", "nack pli", "ccm fir"]
                where section.feedback[track.payloadType]?.contains(kind) == true {
                    lines.append("a=rtcp-fb:\(track.payloadType) \(kind)")
                }
                lines += SessionLines.stream(sourceTrack: track.sourceTrack, ssrc: track.ssrc)
            }
            lines += SessionLines.candidates(candidates)
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A payload type's `a=rtpmap` and `a=fmtp`: the offer's codec, and for video the source's (`sent`) profile.
    static func codecLines(_ codec: WebRTCOffer.Codec, sending sent: MediaFormat?) -> [String] {
        let channels = codec.channels.map { "/\($0)" } ?? ""
        let name = codec.name == "OPUS" ? "opus" : codec.name  // as RFC 7587 writes it
        var lines = ["a=rtpmap:\(codec.payloadType) \(name)/\(codec.clockRate)\(channels)"]
        if codec.name == "H265" {
            // What the offer takes, as it wrote it (profile, tier, level; the stream is the camera's).
            let parameters = codec.parameters.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            if !parameters.isEmpty { lines.append("a=fmtp:\(codec.payloadType) " + parameters.joined(separator: ";")) }
        }
        if codec.name == "H264" {
            let profile = sent?.profileLevelID ?? codec.parameters["profile-level-id"] ?? "42e01f"
            lines.append(
                "a=fmtp:\(codec.payloadType) level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=\(profile)"
            )
        }
        return lines
    }
}

extension MediaFormat {
    /// An H.264 format's `profile-level-id`.
    var profileLevelID: String? {
        if case .video(let format) = self { format.profileLevelID } else { nil }
    }

    /// The SDP media type of the format: `video`, `audio`, `application`.
    var kindName: String {
        switch self {
        case .video: "video"
        case .audio: "audio"
        case .data: "application"
        }
    }
}

/// An H.264 `profile-level-id` (RFC 6184 section 8.1): profile_idc, the constraint flags, level_idc.
struct H264Profile: Hashable {
    let profile: UInt8
    let constraints: UInt8
    let level: UInt8

    init?(_ text: String) {
        guard text.count == 6, let value = UInt32(text, radix: 16) else { return nil }
        profile = UInt8(value >> 16)
        constraints = UInt8(value >> 8 & 0xFF)
        level = UInt8(value & 0xFF)
    }

    /// Whether a decoder of `other`'s profile decodes this one (levels aside: level-asymmetry-allowed): the same
    /// profile_idc, and for Baseline the same constrained-ness (constraint_set1, 0x40).
    func matches(_ other: H264Profile) -> Bool {
        guard profile == other.profile else { return false }
        return profile != 0x42 || (constraints & 0x40) == (other.constraints & 0x40)
    }
}
