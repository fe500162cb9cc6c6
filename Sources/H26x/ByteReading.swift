/// Bounds-checked reads from a payload; nil instead of a trap when the bytes are not there.
extension ArraySlice where Element == UInt8 {
    func u16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= count else { return nil }
        return UInt16(self[startIndex + offset]) << 8 | UInt16(self[startIndex + offset + 1])
    }

    func bytes(at offset: Int, length: Int) -> ArraySlice<UInt8>? {
        guard offset >= 0, length >= 0, offset <= count - length else { return nil }
        return self[(startIndex + offset)..<(startIndex + offset + length)]
    }
}
