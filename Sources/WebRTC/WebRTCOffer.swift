@_spi(SansIO) import DTLS
import SDP

/// What a browser's offer (RFC 8829's SDP) says that answering it needs: its ICE credentials, its certificate's
/// fingerprint, its DTLS role, and per media section the codecs it takes. Read within the SDP reader's limits
/// (64 KiB, 32 sections); what is missing or unusable is a ``WebRTCError`` that says so.
@_spi(SansIO) public struct WebRTCOffer: Sendable, Hashable {
    /// One `m=` section of the offer.
    public struct Section: Sendable, Hashable {
        /// `video`, `audio`, `application`...
        public var kind: String
        /// `a=mid`.
        public var mid: String
        /// Whether the offerer receives on it (`recvonly` or `sendrecv`).
        public var receives: Bool
        /// Whether the offerer sends on it (`sendonly` or `sendrecv`).
        public var sends: Bool
        /// The codecs offered, in the offer's order of preference.
        public var codecs: [Codec]
        /// `a=rtcp-fb` values per payload type (`nack`, `nack pli`, `ccm fir`, `transport-cc`...).
        public var feedback: [UInt8: [String]]
    }

    /// One payload type of a section: its `a=rtpmap` and `a=fmtp`.
    public struct Codec: Sendable, Hashable {
        public var payloadType: UInt8
        /// Upper-cased (`H264`, `OPUS`, `PCMU`).
        public var name: String
        public var clockRate: Int
        public var channels: Int?
        public var parameters: FormatParameters
    }

    public var usernameFragment: String
    public var password: String
    /// The SHA-256 fingerprint of the certificate it will present.
    public var fingerprint: [UInt8]
    /// `a=setup`: `actpass` (the browser's offer), `active` or `passive`.
    public var setup: String
    public var sections: [Section]

    /// Reads an offer.
    public init(_ text: String) throws(WebRTCError) {
        let sdp = try SessionLines.read(text, as: "offer")
        func value(_ name: String, _ media: MediaDescription?) -> String? {
            media?.attributes.value(of: name) ?? sdp.attributes.value(of: name)
        }
        let first = sdp.media.first
        guard let ufrag = value("ice-ufrag", first), let pwd = value("ice-pwd", first), !ufrag.isEmpty, !pwd.isEmpty
        else {
            throw WebRTCError("the offer has no a=ice-ufrag and a=ice-pwd: it is not a WebRTC offer")
        }
        guard ufrag.utf8.count <= 256, pwd.utf8.count <= 256 else {
            throw WebRTCError("the offer's ICE credentials are over 256 bytes")
        }
        guard let fingerprintText = value("fingerprint", first) else {
            throw WebRTCError("the offer has no a=fingerprint: DTLS-SRTP cannot be keyed")
        }
        guard let fingerprint = DTLSIdentity.sha256Fingerprint(fromSDP: fingerprintText) else {
            throw WebRTCError("the offer's a=fingerprint is not a SHA-256 one (\(fingerprintText.prefix(20))...)")
        }
        usernameFragment = ufrag
        password = pwd
        self.fingerprint = fingerprint
        setup = value("setup", first)?.lowercased() ?? "actpass"
        sections = sdp.media.enumerated().map { index, media in
            let direction =
                ["sendrecv", "sendonly", "recvonly", "inactive"].first { name in
                    media.attributes.contains { $0.name.lowercased() == name }
                } ?? "sendrecv"
            let codecs = media.payloadTypes.compactMap { type -> Codec? in
                guard let map = media.rtpMap(for: type) else { return nil }
                return Codec(
                    payloadType: type, name: map.encodingName.uppercased(), clockRate: map.clockRate,
                    channels: map.channels,
                    parameters: media.formatParameters(for: type))
            }
            var feedback: [UInt8: [String]] = [:]
            for value in media.attributes.values(of: "rtcp-fb") {
                let parts = value.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, let type = UInt8(parts[0]) else { continue }
                feedback[type, default: []].append(String(parts[1]))
            }
            return Section(
                kind: media.mediaType.lowercased(),
                mid: media.attributes.value(of: "mid") ?? "\(index)",
                receives: direction == "sendrecv" || direction == "recvonly",
                sends: direction == "sendrecv" || direction == "sendonly", codecs: codecs, feedback: feedback)
        }
    }
}

/// An offer this cannot answer, or a peer that failed, in a sentence.
public struct WebRTCError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { "WebRTC: \(reason)" }
}
