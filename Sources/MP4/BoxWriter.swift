/// ISO BMFF boxes (ISO/IEC 14496-12) built into one growing array: big-endian fields, and each box's size
/// filled in when its body is done.
struct BoxWriter {
    var bytes: [UInt8]

    init(reservingCapacity capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    mutating func u24(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        u16(UInt16(truncatingIfNeeded: value))
    }

    mutating func u32(_ value: UInt32) {
        u16(UInt16(truncatingIfNeeded: value >> 16))
        u16(UInt16(truncatingIfNeeded: value))
    }

    mutating func u64(_ value: UInt64) {
        u32(UInt32(truncatingIfNeeded: value >> 32))
        u32(UInt32(truncatingIfNeeded: value))
    }

    /// A four-character code (ASCII).
    mutating func fourCC(_ code: StaticString) {
        code.withUTF8Buffer { bytes.append(contentsOf: $0.prefix(4)) }
    }

    mutating func zeros(_ count: Int) { bytes.append(contentsOf: repeatElement(0, count: count)) }

    mutating func append(_ other: some Collection<UInt8>) { bytes.append(contentsOf: other) }

    /// A box: its size, its type, then what `body` writes.
    mutating func box(_ type: StaticString, _ body: (inout BoxWriter) -> Void) {
        let start = bytes.count
        u32(0)
        fourCC(type)
        body(&self)
        patch32(at: start, UInt32(truncatingIfNeeded: bytes.count - start))
    }

    /// A full box: a box whose body starts with a version and 24 bits of flags.
    mutating func fullBox(
        _ type: StaticString, version: UInt8 = 0, flags: UInt32 = 0, _ body: (inout BoxWriter) -> Void
    ) {
        box(type) { writer in
            writer.u8(version)
            writer.u24(flags)
            body(&writer)
        }
    }

    /// Overwrites the 32-bit field at `offset` (a size or an offset known only later).
    mutating func patch32(at offset: Int, _ value: UInt32) {
        bytes[offset] = UInt8(truncatingIfNeeded: value >> 24)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[offset + 2] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[offset + 3] = UInt8(truncatingIfNeeded: value)
    }

    /// The unity matrix of `mvhd` and `tkhd`.
    mutating func unityMatrix() {
        for value: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] { u32(value) }
    }
}
