import SDP
/// G.711 companding (ITU-T G.711): 16-bit linear PCM to µ-law (PCMU) or A-law (PCMA) code words and back.
///
/// Encoding picks, for each sample, the code word whose decoded value is nearest: the decision levels lie half
/// way between adjacent reconstruction levels, on the 14-bit (µ-law) or 13-bit (A-law) scale G.711 quantizes,
/// which is how FFmpeg's `pcm_mulaw` and `pcm_alaw` encoders decide, so the two give the same bytes.
public enum G711 {
    /// The code words of `samples`, in `codec` (`.pcmu` or `.pcma`; any other gives µ-law).
    public static func encode(_ samples: some Collection<Int16>, codec: AudioCodec) -> [UInt8] {
        let table = codec == .pcma ? aLawEncoding : muLawEncoding
        return samples.map { table[(Int($0) + 32768) >> 2] }
    }

    /// The linear value of a µ-law code word.
    public static func muLawDecode(_ code: UInt8) -> Int16 {
        let inverted = ~code
        let magnitude = ((Int(inverted & 0x0F) << 3) + 0x84) << Int((inverted & 0x70) >> 4)
        return Int16(inverted & 0x80 != 0 ? 0x84 - magnitude : magnitude - 0x84)
    }

    /// The linear value of an A-law code word.
    public static func aLawDecode(_ code: UInt8) -> Int16 {
        let value = code ^ 0x55
        let segment = Int((value & 0x70) >> 4)
        var magnitude = Int(value & 0x0F) << 4
        magnitude = segment == 0 ? magnitude + 8 : (magnitude + 0x108) << (segment - 1)
        return Int16(value & 0x80 != 0 ? magnitude : -magnitude)
    }

    /// Code words by `(sample + 32768) >> 2` (the 14-bit scale: 8192 is zero).
    static let muLawEncoding = encodingTable(mask: 0xFF, decode: muLawDecode)
    static let aLawEncoding = encodingTable(mask: 0xD5, decode: aLawDecode)

    /// The code word for each point of the 14-bit scale. `mask` turns a level's index (0 the smallest
    /// positive magnitude, 127 the largest) into its positive code word; its negative is that with the sign
    /// bit flipped.
    private static func encodingTable(mask: UInt8, decode: (UInt8) -> Int16) -> [UInt8] {
        var table = [UInt8](repeating: 0, count: 16384)
        table[8192] = mask
        var magnitude = 1
        for level in 0..<127 {
            // The decision level between this one and the next, on the 14-bit scale, rounded.
            let low = Int(decode(UInt8(level) ^ mask))
            let high = Int(decode(UInt8(level + 1) ^ mask))
            let decision = (low + high + 4) >> 3
            while magnitude < decision {
                table[8192 + magnitude] = UInt8(level) ^ mask
                table[8192 - magnitude] = UInt8(level) ^ mask ^ 0x80
                magnitude += 1
            }
        }
        while magnitude < 8192 {
            table[8192 + magnitude] = 127 ^ mask
            table[8192 - magnitude] = 127 ^ mask ^ 0x80
            magnitude += 1
        }
        table[0] = table[1]
        return table
    }
}
