/// Bounds-checked integer reads from a byte slice, in either byte order. Every read is guarded by the
/// caller's length check; these helpers return nil instead of trapping when one is missing.
extension ArraySlice where Element == UInt8 {
    @inlinable
    func u16(at offset: Int, bigEndian: Bool = true) -> UInt16? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        let raw = withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self) }
        return bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw)
    }

    @inlinable
    func u32(at offset: Int, bigEndian: Bool = true) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        let raw = withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
        return bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
    }

    @inlinable
    func u64(at offset: Int, bigEndian: Bool = true) -> UInt64? {
        guard offset >= 0, offset <= count - 8 else { return nil }
        let raw = withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
        return bigEndian ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw)
    }

    /// The `length` bytes at `offset`, or nil if they are not all there.
    @inlinable
    func bytes(at offset: Int, length: Int) -> ArraySlice<UInt8>? {
        guard offset >= 0, length >= 0, offset <= count - length else { return nil }
        return self[(startIndex + offset)..<(startIndex + offset + length)]
    }
}
