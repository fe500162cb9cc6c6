/// Decodes base64 (RFC 4648), with or without padding, as SDP `sprop-*` parameters and `a=crypto`
/// keys carry it, and encodes it (Basic credentials, the RTSP-over-HTTP tunnel). For the package's
/// modules (H26x, SRTP, RTSP); not public API.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` in base64, padded with `=`.
    package static func encode(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = b1 == nil ? nil : iterator.next()
            let n = Int(b0) << 16 | Int(b1 ?? 0) << 8 | Int(b2 ?? 0)
            out.append(alphabet[n >> 18 & 63])
            out.append(alphabet[n >> 12 & 63])
            out.append(b1 == nil ? UInt8(ascii: "=") : alphabet[n >> 6 & 63])
            out.append(b2 == nil ? UInt8(ascii: "=") : alphabet[n & 63])
        }
        return out
    }

    private static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            t[Int(c)] = UInt8(i)
        }
        // base64url, which some cameras use.
        t[Int(UInt8(ascii: "-"))] = 62
        t[Int(UInt8(ascii: "_"))] = 63
        return t
    }()

    /// The decoded bytes, or nil when `text` holds a character outside the alphabet or has a bad length.
    package static func decode(_ text: Substring) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        var padding = 0
        for c in text.utf8 {
            if c == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0 else { return nil }  // data after padding
            let value = table[Int(c)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        guard bits < 6, padding <= 2 else { return nil }  // a lone trailing character is not base64
        return out
    }
}
