import CDTLS

/// A certificate and its key (ECDSA P-256, self-signed) that a WebRTC endpoint presents in its DTLS handshakes,
/// made at start; its SHA-256 fingerprint goes in the session description (`a=fingerprint:sha-256 ...`), which is
/// how the peer knows it (RFC 8122, RFC 8827).
@_spi(SansIO) public final class DTLSIdentity: @unchecked Sendable {
    // Immutable once made: OpenSSL only reads it (each association takes its own reference).
    let pointer: OpaquePointer
    /// The certificate's SHA-256 fingerprint.
    public let fingerprint: [UInt8]

    /// A new identity valid for `days` days.
    public init(validForDays days: Int = 30) throws(DTLSError) {
        let (made, reason) = withErrorBuffer { cdtls_identity_generate(Int32(clamping: days), $0, $1) }
        guard let made else { throw DTLSError(reason) }
        var digest = [UInt8](repeating: 0, count: 32)
        guard cdtls_identity_fingerprint(made, &digest) == 0 else {
            cdtls_identity_free(made)
            throw DTLSError("the certificate's fingerprint could not be computed")
        }
        pointer = made
        fingerprint = digest
    }

    deinit { cdtls_identity_free(pointer) }

    /// The fingerprint as `a=fingerprint` writes it: `sha-256 AB:CD:...`.
    public var sdpFingerprint: String { "sha-256 " + Self.hexText(fingerprint) }

    /// Bytes as colon-separated upper-case hex pairs (RFC 8122 section 5).
    public static func hexText(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + text : text
        }.joined(separator: ":")
    }

    /// The SHA-256 fingerprint of an `a=fingerprint` value (`sha-256 AB:CD:...`, any case); nil for another hash
    /// or a malformed value.
    public static func sha256Fingerprint(fromSDP value: String) -> [UInt8]? {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "sha-256" else { return nil }
        let pairs = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard pairs.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for pair in pairs {
            guard pair.count == 2, let byte = UInt8(pair, radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
