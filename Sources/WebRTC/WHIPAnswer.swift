@_spi(SansIO) import DTLS
@_spi(SansIO) import ICE
import PacketCapture
import SDP

/// What a WHIP endpoint's answer (RFC 9725 section 4.2) says a publisher needs: its ICE credentials and
/// candidates, its certificate's fingerprint, the DTLS role it took, and for each section of our offer whether it
/// was taken, in which payload type. Read within the SDP reader's limits; what is missing or unusable is a
/// ``WebRTCError`` that says so.
@_spi(SansIO) public struct WHIPAnswer: Sendable, Hashable {
    /// One section of the answer, in the offer's order.
    public struct Section: Sendable, Hashable {
        /// Whether the endpoint takes it (a port other than 0, and a payload type).
        public var isAccepted: Bool
        /// The payload type it takes: the first of its `m=` line.
        public var payloadType: UInt8?
    }

    /// The endpoint's ICE credentials.
    public var credentials: ICELiteAgent.Credentials
    /// Its candidates over UDP (host, server-reflexive, relayed), by IP address: names (mDNS) are left out.
    public var candidates: [SocketAddress]
    /// The SHA-256 fingerprint of the certificate it will present.
    public var fingerprint: [UInt8]
    /// Whether we are the DTLS client: the endpoint said `a=setup:passive` (else `active`: we are the server).
    public var weAreDTLSClient: Bool
    public var sections: [Section]

    /// Reads an answer.
    public init(_ text: String) throws(WebRTCError) {
        let sdp = try SessionLines.read(text, as: "answer")
        func value(_ name: String) -> String? {
            sdp.media.first?.attributes.value(of: name) ?? sdp.attributes.value(of: name)
        }
        guard let ufrag = value("ice-ufrag"), let pwd = value("ice-pwd"), !ufrag.isEmpty, !pwd.isEmpty,
            ufrag.utf8.count <= 256, pwd.utf8.count <= 256
        else {
            throw WebRTCError("the answer has no usable a=ice-ufrag and a=ice-pwd")
        }
        // The SHA-256 one of those given (aiortc gives SHA-256, -384 and -512).
        let fingerprints =
            (sdp.media.first?.attributes.values(of: "fingerprint") ?? [])
            + sdp.attributes.values(of: "fingerprint")
        guard let fingerprint = fingerprints.lazy.compactMap(DTLSIdentity.sha256Fingerprint(fromSDP:)).first else {
            throw WebRTCError("the answer has no SHA-256 a=fingerprint: DTLS-SRTP cannot be keyed")
        }
        switch value("setup")?.lowercased() {
        case "passive": weAreDTLSClient = true
        case "active", nil: weAreDTLSClient = false  // RFC 8842 section 5.3: an answer without it is active
        case let other?: throw WebRTCError("the answer's a=setup:\(other) is not active or passive")
        }
        credentials = ICELiteAgent.Credentials(usernameFragment: ufrag, password: pwd)
        self.fingerprint = fingerprint
        var candidates: [SocketAddress] = []
        // Bundled: every section's candidates are the one transport's (some endpoints repeat them in each).
        let lines = sdp.attributes.values(of: "candidate") + sdp.media.flatMap { $0.attributes.values(of: "candidate") }
        for line in lines {
            if let address = Self.candidate(line), !candidates.contains(address) { candidates.append(address) }
        }
        self.candidates = candidates
        sections = sdp.media.map { media in
            Section(isAccepted: media.port != 0 && !media.payloadTypes.isEmpty, payloadType: media.payloadTypes.first)
        }
    }

    /// A candidate attribute's address (RFC 8839 section 5.1: foundation, component, transport, priority,
    /// address, port, `typ` and its type): component 1 over UDP at an IP address; nil for any other.
    package static func candidate(_ value: String) -> SocketAddress? {
        let fields = value.split(separator: " ")
        guard fields.count >= 8, fields[1] == "1", fields[2].lowercased() == "udp",
            let ip = IPAddress(parsing: String(fields[4])), let port = UInt16(fields[5]), port != 0
        else { return nil }
        return SocketAddress(address: ip, port: port)
    }
}
