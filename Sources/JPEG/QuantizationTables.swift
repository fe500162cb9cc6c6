/// A picture's quantization tables as a DQT segment holds them: each table's 64 entries in zig-zag order,
/// one byte each (or two, where its precision bit is set), table 0 first.
struct QuantizationTables: Sendable, Equatable {
    /// Bit `i` set: table `i` has 16-bit entries.
    var precision: UInt8
    var bytes: [UInt8]

    /// How many tables the bytes hold, when they are whole tables (at most 4, JPEG's destinations); nil when
    /// they are not.
    var count: Int? {
        var remaining = bytes.count
        var tables = 0
        while remaining > 0 && tables < 4 {
            remaining -= precision & (1 << tables) != 0 ? 128 : 64
            tables += 1
        }
        return remaining == 0 && tables > 0 ? tables : nil
    }

    /// The tables RFC 2435's appendix A computes for `q` (1-99; values outside are clamped there): the JPEG
    /// standard's example luminance and chrominance tables (ITU T.81 tables K.1 and K.2) scaled as the IJG
    /// library scales them for a quality, so that a sender using libjpeg's quality `q` needs no tables in band.
    static func rfc2435(q: UInt8) -> QuantizationTables {
        let factor = min(max(Int(q), 1), 99)
        let scale = factor < 50 ? 5000 / factor : 200 - factor * 2
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        for table in [luminance, chrominance] {
            for index in zigzag {
                bytes.append(UInt8(min(max((Int(table[index]) * scale + 50) / 100, 1), 255)))
            }
        }
        return QuantizationTables(precision: 0, bytes: bytes)
    }

    /// ITU T.81 table K.1, in row order.
    private static let luminance: [UInt8] = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]
    /// ITU T.81 table K.2, in row order.
    private static let chrominance: [UInt8] =
        [
            17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
            24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
        ] + [UInt8](repeating: 99, count: 32)

    /// The row-order index of each zig-zag position: the anti-diagonals walked in turn, alternating direction.
    static let zigzag: [Int] = {
        var order: [Int] = []
        for sum in 0..<15 {
            let rows = (max(0, sum - 7)...min(sum, 7)).map { ($0, sum - $0) }
            for (row, column) in sum % 2 == 1 ? rows : rows.reversed() { order.append(row * 8 + column) }
        }
        return order
    }()
}
