import CDTLS
import SRTP

/// One DTLS-SRTP association (RFC 5764) with one peer, sans I/O: datagrams the peer sent are handed in, the
/// datagrams to send back come out; the owner runs the retransmission timer (``retransmissionDelay``). Once the
/// handshake is done, ``srtpKeys()`` gives the SRTP keys both ways; the peer's certificate must then be checked
/// against the fingerprint its session description gave (``peerFingerprint``): a self-signed certificate is all
/// WebRTC has.
///
/// Not thread-safe: one owner (a viewer's event loop) drives it. OpenSSL does the protocol; nothing of DTLS is
/// implemented here.
@_spi(SansIO) public final class DTLSEndpoint {
    /// Which side of the handshake: a WebRTC answerer with `a=setup:passive` is the server.
    public enum Role: Sendable, Hashable {
        case server
        case client
    }

    /// The SRTP keys a finished handshake gives: ours to protect what we send, the peer's to read what it sends.
    public struct Keys: Sendable, Hashable {
        public let suite: SRTPSuite
        public let local: SRTPKey
        public let remote: SRTPKey
    }

    public let role: Role
    private let pointer: OpaquePointer
    /// Kept alive as long as the association uses it.
    private let identity: DTLSIdentity
    public private(set) var isConnected = false
    /// The handshake failed or the peer closed: nothing more is read.
    public private(set) var failure: DTLSError?

    /// The SRTP suites offered, in order of preference (RFC 5764's profiles for AES-CM-HMAC-SHA1-80, RFC 7714's for
    /// AEAD-AES-128-GCM).
    public static let suites: [SRTPSuite] = [.aeadAES128GCM, .aesCM128HMACSHA1_80]

    public init(identity: DTLSIdentity, role: Role, suites: [SRTPSuite] = DTLSEndpoint.suites) throws(DTLSError) {
        let profiles = suites.compactMap(Self.profileName).joined(separator: ":")
        guard !profiles.isEmpty else { throw DTLSError("none of \(suites) is an SRTP profile DTLS negotiates") }
        let (made, reason) = withErrorBuffer {
            cdtls_endpoint_new(identity.pointer, role == .server ? 1 : 0, profiles, $0, $1)
        }
        guard let made else { throw DTLSError(reason) }
        pointer = made
        self.identity = identity
        self.role = role
    }

    deinit { cdtls_endpoint_free(pointer) }

    /// The client's first flight (a server waits for the client's hello instead).
    public func start() throws(DTLSError) -> [[UInt8]] {
        let (result, reason) = withErrorBuffer { cdtls_endpoint_start(pointer, $0, $1) }
        try note(result, reason)
        return takeOutgoing()
    }

    /// A datagram from the peer (first byte 20 to 63, RFC 7983); returns what to send back.
    public func receive(_ datagram: some Collection<UInt8>) throws(DTLSError) -> [[UInt8]] {
        if let failure { throw failure }
        let bytes = Array(datagram)
        let (result, reason) = bytes.withUnsafeBufferPointer { buffer in
            withErrorBuffer { cdtls_endpoint_receive(pointer, buffer.baseAddress, buffer.count, $0, $1) }
        }
        try note(result, reason)
        return takeOutgoing()
    }

    /// How long until the handshake's retransmission timer fires; nil when none runs (done, or waiting for a
    /// first hello).
    public var retransmissionDelay: Duration? {
        let milliseconds = cdtls_endpoint_timeout_ms(pointer)
        return milliseconds < 0 ? nil : .milliseconds(milliseconds)
    }

    /// The retransmission timer fired: what to send again (nothing when called before ``retransmissionDelay``
    /// has passed: OpenSSL keeps the timer on its own monotonic clock). The timer starts at 200 ms and doubles to
    /// 3.2 s.
    public func retransmit() throws(DTLSError) -> [[UInt8]] {
        guard cdtls_endpoint_handle_timeout(pointer) == 0 else {
            let failure = DTLSError("the peer did not answer the handshake's retransmissions")
            self.failure = failure
            throw failure
        }
        return takeOutgoing()
    }

    /// The SHA-256 fingerprint of the certificate the peer presented (nil before it did).
    public var peerFingerprint: [UInt8]? {
        var digest = [UInt8](repeating: 0, count: 32)
        return cdtls_endpoint_peer_fingerprint(pointer, &digest) == 0 ? digest : nil
    }

    /// The SRTP keys of the finished handshake (RFC 5764 section 4.2: client key, server key, client salt, server
    /// salt, from the "EXTRACTOR-dtls_srtp" exporter).
    public func srtpKeys() throws(DTLSError) -> Keys {
        guard isConnected else { throw DTLSError("the handshake is not done: no SRTP keys yet") }
        guard let suite = Self.suite(profile: cdtls_endpoint_srtp_profile(pointer)) else {
            throw DTLSError("no SRTP profile was agreed in the handshake")
        }
        let (key, salt) = (suite.masterKeyLength, suite.saltLength)
        var material = [UInt8](repeating: 0, count: 2 * (key + salt))
        guard cdtls_endpoint_export_keying_material(pointer, &material, material.count) == 0 else {
            throw DTLSError("the SRTP keying material could not be exported")
        }
        let client = Array(material[0..<key]) + material[(2 * key)..<(2 * key + salt)]
        let server = Array(material[key..<(2 * key)]) + material[(2 * key + salt)...]
        do {
            let clientKey = try SRTPKey(suite: suite, material: client)
            let serverKey = try SRTPKey(suite: suite, material: server)
            return role == .server
                ? Keys(suite: suite, local: serverKey, remote: clientKey)
                : Keys(suite: suite, local: clientKey, remote: serverKey)
        } catch {
            throw DTLSError("the exported keys do not fit \(suite): \(error)")
        }
    }

    private func note(_ result: Int32, _ reason: String) throws(DTLSError) {
        switch result {
        case 1: isConnected = true
        case 0: break
        default:
            let failure = DTLSError(reason)
            self.failure = failure
            throw failure
        }
    }

    private func takeOutgoing() -> [[UInt8]] {
        var datagrams: [[UInt8]] = []
        while case let length = cdtls_endpoint_pending(pointer), length > 0 {
            var datagram = [UInt8](repeating: 0, count: length)
            let taken = cdtls_endpoint_take(pointer, &datagram, length)
            datagrams.append(Array(datagram.prefix(taken)))
        }
        return datagrams
    }

    /// OpenSSL's name of a suite's profile.
    static func profileName(_ suite: SRTPSuite) -> String? {
        switch suite {
        case .aesCM128HMACSHA1_80: "SRTP_AES128_CM_SHA1_80"
        case .aesCM128HMACSHA1_32: "SRTP_AES128_CM_SHA1_32"
        case .aeadAES128GCM: "SRTP_AEAD_AES_128_GCM"
        case .aeadAES256GCM: "SRTP_AEAD_AES_256_GCM"
        }
    }

    /// The suite of a profile id (RFC 5764 section 4.1.2, RFC 7714 section 14.2).
    static func suite(profile: Int32) -> SRTPSuite? {
        switch profile {
        case 0x0001: .aesCM128HMACSHA1_80
        case 0x0002: .aesCM128HMACSHA1_32
        case 0x0007: .aeadAES128GCM
        case 0x0008: .aeadAES256GCM
        default: nil
        }
    }
}
