/// Reads bits, most significant first, from bytes; past the end it reads zeros and says so
/// (``isPastEnd``), so that a parser checks once rather than at every field.
struct BitReader {
    private let bytes: ArraySlice<UInt8>
    private(set) var position = 0

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    var bitCount: Int { bytes.count * 8 }
    var isPastEnd: Bool { position > bitCount }
    var remaining: Int { bitCount - position }

    /// The next `count` bits (0 to 32) as a number.
    mutating func read(_ count: Int) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<max(0, min(count, 32)) {
            let byte = position / 8
            let bit: UInt32 =
                byte < bytes.count ? UInt32(bytes[bytes.startIndex + byte] >> (7 - UInt8(position % 8))) & 1 : 0
            value = value << 1 | bit
            position += 1
        }
        if count > 32 { skip(count - 32) }
        return value
    }

    mutating func flag() -> Bool { read(1) == 1 }

    /// Moves `count` bits on; a count past the end stops just past it (``isPastEnd``), so that a length read
    /// from input can never overflow the position.
    mutating func skip(_ count: Int) { position = count > remaining ? bitCount + 1 : position + max(0, count) }

    /// The bits from `start` to `end` as bytes (the last padded with zeros), wherever they stand.
    func bits(from start: Int, to end: Int) -> [UInt8] {
        var copy = BitReader(bytes)
        copy.position = start
        var out: [UInt8] = []
        var left = max(0, end - start)
        while left > 0 {
            let count = min(8, left)
            out.append(UInt8(copy.read(count) << (8 - UInt32(count))))
            left -= count
        }
        return out
    }

    /// Moves to the next byte boundary.
    mutating func align() { position = (position + 7) / 8 * 8 }
}
