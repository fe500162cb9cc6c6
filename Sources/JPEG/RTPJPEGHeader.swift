/// The headers before a fragment of an RTP JPEG payload (RFC 2435 section 3.1): the main JPEG header, the
/// restart marker header of types 64-127, and the quantization table header of the first fragment of a
/// picture whose Q is 128-255.
struct RTPJPEGHeader: Sendable {
    /// The type-specific field: 0 for progressive pictures (1-3: the fields of an interlaced picture).
    var typeSpecific: UInt8
    /// Where the fragment's bytes go in the picture's entropy-coded data.
    var fragmentOffset: Int
    /// The type (0: 4:2:2, 1: 4:2:0; plus 64 with restart markers).
    var type: UInt8
    /// The quantization table selector: 1-99 computed (RFC 2435 appendix A), 128-255 in band.
    var q: UInt8
    /// The picture size in 8-pixel blocks, as the header's 8-bit fields say (0: announced elsewhere).
    var widthBlocks: Int
    var heightBlocks: Int
    /// The restart interval in MCUs (types 64-127), else nil.
    var restartInterval: Int?
    /// Bit `i` set: table `i` has 16-bit entries (the quantization table header's precision field).
    var tablePrecision: UInt8 = 0
    /// The in-band quantization tables, as indices of the payload (empty: the tables cached for this Q).
    var tables: Range<Int>?
    /// Where the entropy-coded data of the fragment starts, as an index of the payload.
    var dataStart: Int

    /// The base type: 0 (4:2:2) or 1 (4:2:0) for the types this library takes.
    var baseType: UInt8 { type & 0x3F }

    static let mainHeaderSize = 8
    static let restartHeaderSize = 4
    static let tableHeaderSize = 4

    /// Reads the headers of `payload`.
    /// - Throws: `.malformedPayload` when the payload is shorter than the headers it announces.
    init(_ payload: ArraySlice<UInt8>) throws(JPEGError) {
        let start = payload.startIndex
        guard payload.count >= Self.mainHeaderSize else {
            throw JPEGError(
                .malformedPayload, "a payload of \(payload.count) bytes is shorter than the 8-byte JPEG header")
        }
        typeSpecific = payload[start]
        fragmentOffset = Int(payload[start + 1]) << 16 | Int(payload[start + 2]) << 8 | Int(payload[start + 3])
        type = payload[start + 4]
        q = payload[start + 5]
        widthBlocks = Int(payload[start + 6])
        heightBlocks = Int(payload[start + 7])
        var position = start + Self.mainHeaderSize
        if (64...127).contains(type) {
            guard payload.endIndex - position >= Self.restartHeaderSize else {
                throw JPEGError(.malformedPayload, "type \(type) announces a restart marker header the payload lacks")
            }
            restartInterval = Int(payload[position]) << 8 | Int(payload[position + 1])
            position += Self.restartHeaderSize
        }
        if q >= 128 && fragmentOffset == 0 {
            guard payload.endIndex - position >= Self.tableHeaderSize else {
                throw JPEGError(.malformedPayload, "Q \(q) announces a quantization table header the payload lacks")
            }
            tablePrecision = payload[position + 1]
            let length = Int(payload[position + 2]) << 8 | Int(payload[position + 3])
            position += Self.tableHeaderSize
            guard payload.endIndex - position >= length else {
                throw JPEGError(
                    .malformedPayload,
                    "the quantization tables' length (\(length) bytes) runs past the payload (\(payload.endIndex - position))"
                )
            }
            tables = position..<(position + length)
            position += length
        }
        dataStart = position
    }
}
