import RTP

/// A master key and salt for one SRTP suite: given directly, or from SDES (RFC 4568 `a=crypto`).
public struct SRTPKey: Sendable, Hashable, CustomStringConvertible {
    public let suite: SRTPSuite
    /// Master key followed by master salt.
    let material: [UInt8]

    /// A key from its bytes (master key followed by master salt).
    public init(suite: SRTPSuite, material: [UInt8]) throws(SRTPError) {
        guard material.count == suite.keyLength else {
            throw SRTPError(
                .invalidKey,
                "\(suite) takes \(suite.keyLength) bytes of key and salt (\(suite.masterKeyLength) + \(suite.saltLength)), not \(material.count)"
            )
        }
        self.suite = suite
        self.material = material
    }

    /// A key from base64 (the `inline:` form: master key followed by master salt).
    public init(suite: SRTPSuite, base64: String) throws(SRTPError) {
        guard let bytes = Base64.decode(base64[...]) else {
            throw SRTPError(.invalidKey, "the SRTP key is not valid base64")
        }
        try self.init(suite: suite, material: bytes)
    }

    /// A key from an SDP `a=crypto` attribute value (RFC 4568 section 9.1), for example
    /// `1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:4`. The lifetime
    /// and MKI parts are accepted and not used (one key per session).
    public init(cryptoAttribute value: String) throws(SRTPError) {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 3 else {
            throw SRTPError(.invalidKey, "an a=crypto attribute is: tag suite inline:key")
        }
        guard let suite = SRTPSuite(name: String(fields[1])) else {
            throw SRTPError(.unsupportedSuite, "SRTP suite \(fields[1].prefix(40)) is not one of \(SRTPSuite.allCases)")
        }
        let keyParams = fields[2]
        guard keyParams.lowercased().hasPrefix("inline:") else {
            throw SRTPError(.invalidKey, "only inline: keys are supported in a=crypto")
        }
        let key = keyParams.dropFirst(7).split(separator: "|", omittingEmptySubsequences: false).first ?? ""
        try self.init(suite: suite, base64: String(key))
    }

    /// Never the key itself.
    public var description: String { "SRTPKey(\(suite), <\(material.count) bytes>)" }
}

extension SRTPKey {
    /// A key of random bytes (the system's generator) for `suite`: what a server announces to its clients.
    public static func random(suite: SRTPSuite = .aesCM128HMACSHA1_80) -> SRTPKey {
        var generator = SystemRandomNumberGenerator()
        let material = (0..<suite.keyLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
        // The length is the suite's own: the initializer cannot refuse it.
        return (try? SRTPKey(suite: suite, material: material)) ?? SRTPKey(unchecked: suite, material: material)
    }

    private init(unchecked suite: SRTPSuite, material: [UInt8]) {
        self.suite = suite
        self.material = material
    }

    /// The SDP `a=crypto` value that announces this key (RFC 4568): `1 SUITE inline:BASE64`. It holds the key: send
    /// it only where the session description is private (RTSPS, or a network you trust).
    public var cryptoAttribute: String {
        "1 \(suite.rawValue) inline:" + String(decoding: Base64.encode(material), as: UTF8.self)
    }
}
