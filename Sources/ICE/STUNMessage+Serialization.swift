import RTP

extension STUNMessage {
    /// The message as it goes on the wire: header, attributes padded with zeros to 4 bytes, then
    /// MESSAGE-INTEGRITY for `integrityKey` (when given) and FINGERPRINT (when `fingerprint`), each over what
    /// precedes it as RFC 8489 section 14 has it. Attributes given as MESSAGE-INTEGRITY or FINGERPRINT are left
    /// out (they are computed here).
    public func serialized(integrityKey: [UInt8]? = nil, fingerprint: Bool = true) -> [UInt8] {
        let classBits = messageClass.rawValue
        let type =
            (method & 0x000F) | (method & 0x0070) << 1 | (method & 0x0F80) << 2 | (classBits & 0b01) << 4
            | (classBits & 0b10) << 7
        var bytes: [UInt8] = [UInt8(type >> 8), UInt8(type & 0xFF), 0, 0]
        bytes.appendBigEndian(Self.magicCookie)
        bytes += transactionID.prefix(12) + [UInt8](repeating: 0, count: max(0, 12 - transactionID.count))
        for attribute in attributes
        where attribute.type != STUNAttribute.messageIntegrity && attribute.type != STUNAttribute.fingerprint {
            let value = attribute.value.prefix(Int(UInt16.max) - 3)
            bytes += [
                UInt8(attribute.type >> 8), UInt8(attribute.type & 0xFF), UInt8(value.count >> 8),
                UInt8(value.count & 0xFF),
            ]
            bytes += value
            bytes += [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
        }
        Self.setLength(&bytes, bytes.count - 20)
        return Self.seal(bytes, integrityKey: integrityKey, fingerprint: fingerprint)
    }

    /// A message's bytes (header and attributes) with MESSAGE-INTEGRITY for `integrityKey` (when given) and
    /// FINGERPRINT (when `fingerprint`) added, each over what precedes it, the length field set to match.
    static package func seal(_ message: [UInt8], integrityKey: [UInt8]?, fingerprint: Bool) -> [UInt8] {
        var bytes = message
        if let integrityKey {
            setLength(&bytes, bytes.count + 24 - 20)
            let code = STUNIntegrity.code(bytes, key: integrityKey)
            bytes += [0x00, 0x08, 0x00, 0x14] + code
        }
        if fingerprint {
            setLength(&bytes, bytes.count + 8 - 20)
            let crc = CRC32.checksum(bytes) ^ STUNAttribute.fingerprintXOR
            bytes += [0x80, 0x28, 0x00, 0x04]
            bytes.appendBigEndian(crc)
        }
        setLength(&bytes, bytes.count - 20)
        return bytes
    }
}
