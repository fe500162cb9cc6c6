/// Writes the bits and Exp-Golomb codes of a parameter set's RBSP, for tests that need one no encoder
/// will make on demand; ``nal(header:)`` adds the trailing bits and the emulation-prevention bytes.
struct BitWriter {
    private var bytes: [UInt8] = []
    private var used = 8  // bits used in the last byte

    mutating func bits(_ value: UInt64, _ count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) { bit(value >> UInt64(shift) & 1 == 1) }
    }

    mutating func bit(_ set: Bool) {
        if used == 8 {
            bytes.append(0)
            used = 0
        }
        if set { bytes[bytes.count - 1] |= 0x80 >> UInt8(used) }
        used += 1
    }

    mutating func flag(_ set: Bool) { bit(set) }

    /// ue(v).
    mutating func ue(_ value: UInt32) {
        let code = UInt64(value) + 1
        let length = 64 - code.leadingZeroBitCount
        bits(0, length - 1)
        bits(code, length)
    }

    /// se(v).
    mutating func se(_ value: Int32) {
        ue(value > 0 ? UInt32(2 * value - 1) : UInt32(-2 * Int64(value)))
    }

    /// The NAL unit: `header`, then the RBSP with its stop bit, with 00 00 03 wherever 00 00 would be
    /// followed by a byte of 3 or less.
    func nal(header: [UInt8]) -> [UInt8] {
        var rbsp = self
        rbsp.bit(true)
        var out = header
        var zeros = 0
        for byte in rbsp.bytes {
            if zeros >= 2 && byte <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }
}
