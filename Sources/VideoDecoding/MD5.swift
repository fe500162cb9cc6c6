#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// MD5 (RFC 1321), for comparing decoded frames with the digests other tools print (GStreamer's
/// checksumsink, FFmpeg's framemd5). Not for security.
public struct MD5: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9,
        14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15,
        21, 6, 10, 15, 21,
    ]
    private static let constants: [UInt32] = (0..<64).map { i in
        UInt32(truncatingIfNeeded: Int64(abs(sin(Double(i + 1))) * 4_294_967_296))
    }

    public init() {}

    /// Adds bytes.
    public mutating func update<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        length += UInt64(bytes.count)
        pending += bytes
        var offset = 0
        while pending.count - offset >= 64 {
            block(pending[offset..<(offset + 64)])
            offset += 64
        }
        pending.removeFirst(offset)
    }

    /// The digest as 32 lowercase hex digits. Call once.
    public mutating func finalize() -> String {
        let bits = length * 8
        var tail: [UInt8] = [0x80]
        while (pending.count + tail.count) % 64 != 56 { tail.append(0) }
        for i in 0..<8 { tail.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i)))) }
        let saved = length
        update(tail)
        length = saved
        var hex = ""
        for word in [state.0, state.1, state.2, state.3] {
            for shift: UInt32 in [0, 8, 16, 24] {
                let byte = UInt8(truncatingIfNeeded: word >> shift)
                hex += (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return hex
    }

    private mutating func block(_ chunk: ArraySlice<UInt8>) {
        var m = [UInt32](repeating: 0, count: 16)
        for i in 0..<16 {
            let b = chunk.startIndex + i * 4
            m[i] =
                UInt32(chunk[b]) | UInt32(chunk[b + 1]) << 8 | UInt32(chunk[b + 2]) << 16 | UInt32(chunk[b + 3]) << 24
        }
        var (a, b, c, d) = state
        for i in 0..<64 {
            var f: UInt32
            let g: Int
            switch i {
            case 0..<16: (f, g) = ((b & c) | (~b & d), i)
            case 16..<32: (f, g) = ((d & b) | (~d & c), (5 * i + 1) % 16)
            case 32..<48: (f, g) = (b ^ c ^ d, (3 * i + 5) % 16)
            default: (f, g) = (c ^ (b | ~d), (7 * i) % 16)
            }
            f = f &+ a &+ Self.constants[i] &+ m[g]
            a = d
            d = c
            c = b
            b = b &+ (f << Self.shifts[i] | f >> (32 - Self.shifts[i]))
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
}
