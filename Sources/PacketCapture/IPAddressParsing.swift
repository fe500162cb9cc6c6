extension IPAddress {
    /// Parses an address in text form: a dotted quad (`192.0.2.7`), or IPv6 (`2001:db8::1`, `::1`,
    /// `::ffff:192.0.2.7`, with a `%zone` suffix ignored). Nil for anything else, a host name included.
    public init?(parsing text: some StringProtocol) {
        if let v4 = Self.parseV4(text) {
            self = .v4(v4)
            return
        }
        guard let groups = Self.parseV6(text.split(separator: "%", maxSplits: 1).first ?? "") else { return nil }
        let word = { (range: Range<Int>) in groups[range].reduce(UInt64(0)) { $0 << 16 | UInt64($1) } }
        self = .v6(high: word(0..<4), low: word(4..<8))
    }

    private static func parseV4(_ text: some StringProtocol) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), let byte = UInt8(part) else { return nil }
            value = value << 8 | UInt32(byte)
        }
        return value
    }

    /// The eight 16-bit groups, "::" expanded.
    private static func parseV6(_ text: some StringProtocol) -> [UInt16]? {
        let halves = text.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2, text.count <= 45 else { return nil }
        func groups(_ part: some StringProtocol) -> [UInt16]? {
            guard !part.isEmpty else { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = parseV4(piece) {
                    result += [UInt16(v4 >> 16), UInt16(v4 & 0xFFFF)]
                } else {
                    guard (1...4).contains(piece.count), let group = UInt16(piece, radix: 16) else { return nil }
                    result.append(group)
                }
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 8 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 7 else { return nil }
        return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
    }
}
