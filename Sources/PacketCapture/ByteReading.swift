/// Bounds-checked integer reads from a byte slice, in either byte order. Every read is guarded by the
/// caller's length check; these helpers return nil instead of trapping when one is missing.
extension ArraySlice where Element == UInt8 {
    @inlinable
    func u16(at offset: Int, bigEndian: Bool = true) -> UInt16? {
        guard offset >= 0, offset + 2 <= count else { return nil }
        let a = UInt16(self[startIndex + offset])
        let b = UInt16(self[startIndex + offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    @inlinable
    func u32(at offset: Int, bigEndian: Bool = true) -> UInt32? {
        guard let first = u16(at: offset, bigEndian: bigEndian), let second = u16(at: offset + 2, bigEndian: bigEndian)
        else { return nil }
        return bigEndian ? UInt32(first) << 16 | UInt32(second) : UInt32(second) << 16 | UInt32(first)
    }

    @inlinable
    func u64(at offset: Int, bigEndian: Bool = true) -> UInt64? {
        guard let first = u32(at: offset, bigEndian: bigEndian), let second = u32(at: offset + 4, bigEndian: bigEndian)
        else { return nil }
        return bigEndian ? UInt64(first) << 32 | UInt64(second) : UInt64(second) << 32 | UInt64(first)
    }

    /// The `length` bytes at `offset`, or nil if they are not all there.
    @inlinable
    func bytes(at offset: Int, length: Int) -> ArraySlice<UInt8>? {
        guard offset >= 0, length >= 0, offset <= count - length else { return nil }
        return self[(startIndex + offset)..<(startIndex + offset + length)]
    }
}
