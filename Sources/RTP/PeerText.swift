extension String {
    /// The text with every control character (C0, DEL and C1) written as `\xHH`, so that text a peer sent
    /// (a reason phrase, a header, a URL from `Location`, a payload a depacketizer refused) cannot move the cursor,
    /// retitle a terminal
    /// window or fake coloured output when it is printed or logged.
    package var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: \.isControlCharacter) else { return self }
        var escaped = ""
        escaped.reserveCapacity(utf8.count + 8)
        for scalar in unicodeScalars {
            if scalar.isControlCharacter {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}

extension Unicode.Scalar {
    /// C0 (U+0000–U+001F), DEL and C1 (U+0080–U+009F): the characters terminals act on instead of showing.
    fileprivate var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}

/// `0x0123ABCD`: an SSRC (or any 32-bit value) as the tools and logs write it.
package func hex32(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
}
