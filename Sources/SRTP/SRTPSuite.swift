/// The SRTP protection profiles this library receives (RFC 4568 / RFC 7714 names).
public enum SRTPSuite: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case aesCM128HMACSHA1_80 = "AES_CM_128_HMAC_SHA1_80"
    /// A 32-bit tag on RTP; SRTCP keeps the 80-bit tag (RFC 4568 section 6.2.1).
    case aesCM128HMACSHA1_32 = "AES_CM_128_HMAC_SHA1_32"
    case aeadAES128GCM = "AEAD_AES_128_GCM"
    case aeadAES256GCM = "AEAD_AES_256_GCM"

    /// Bytes of master key and master salt, in that order, as `inline:` keys carry them.
    public var keyLength: Int { masterKeyLength + saltLength }
    public var masterKeyLength: Int { self == .aeadAES256GCM ? 32 : 16 }
    public var saltLength: Int {
        switch self {
        case .aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32: 14
        case .aeadAES128GCM, .aeadAES256GCM: 12
        }
    }

    public var description: String { rawValue }

    /// The suite named `name` (case-insensitive), or nil.
    public init?(name: String) {
        guard let suite = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            return nil
        }
        self = suite
    }
}
