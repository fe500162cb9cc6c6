import Crypto

/// MESSAGE-INTEGRITY's HMAC-SHA1 (RFC 8489 section 14.5).
enum STUNIntegrity {
    static func code(_ bytes: [UInt8], key: [UInt8]) -> [UInt8] {
        Array(HMAC<Insecure.SHA1>.authenticationCode(for: bytes, using: SymmetricKey(data: key)))
    }
}
