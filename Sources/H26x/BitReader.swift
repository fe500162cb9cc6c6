/// Reads bits and Exp-Golomb codes from a NAL unit's RBSP, skipping emulation-prevention bytes
/// (00 00 03) as it goes: no copy, no allocation. Every read past the end throws instead of trapping.
struct BitReader {
    struct EndOfData: Error {}

    private let bytes: ArraySlice<UInt8>
    private var index: Int
    private var current: UInt8 = 0
    private var bitsInCurrent = 0
    private var zeros = 0

    /// Reads `nal` after its `headerLength` header bytes.
    init(rbspOf nal: ArraySlice<UInt8>, headerLength: Int) {
        self.bytes = nal
        self.index = min(nal.startIndex + headerLength, nal.endIndex)
    }

    private mutating func load() throws(EndOfData) {
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            current = byte
            bitsInCurrent = 8
            return
        }
        throw EndOfData()
    }

    mutating func bit() throws(EndOfData) -> UInt32 {
        if bitsInCurrent == 0 { try load() }
        bitsInCurrent -= 1
        return UInt32(current >> UInt8(bitsInCurrent) & 1)
    }

    mutating func bits(_ count: Int) throws(EndOfData) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count { value = value << 1 | (try bit()) }
        return value
    }

    mutating func skip(_ count: Int) throws(EndOfData) {
        for _ in 0..<count { _ = try bit() }
    }

    /// ue(v). Codes longer than 31 bits are refused (no valid syntax element needs them).
    mutating func unsignedGolomb() throws(EndOfData) -> UInt32 {
        var zeros = 0
        while try bit() == 0 {
            zeros += 1
            guard zeros < 32 else { throw EndOfData() }
        }
        return (UInt32(1) << zeros) - 1 + (try bits(zeros))
    }

    /// se(v).
    mutating func signedGolomb() throws(EndOfData) -> Int32 {
        let code = try unsignedGolomb()
        let magnitude = Int32((code + 1) / 2)
        return code % 2 == 1 ? magnitude : -magnitude
    }
}
