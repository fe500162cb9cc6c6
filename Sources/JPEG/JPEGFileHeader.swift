/// Writes what RFC 2435 leaves out of the payload and a decoder needs before the entropy-coded data: the
/// JPEG file's markers from SOI to SOS (appendix B's MakeHeaders), for the baseline pictures of types 0
/// (4:2:2) and 1 (4:2:0), three components, the JPEG standard's Huffman tables.
enum JPEGFileHeader {
    struct Picture {
        /// 0 (4:2:2: luminance sampled 2x1) or 1 (4:2:0: 2x2).
        var baseType: UInt8
        var width: Int
        var height: Int
        var tables: QuantizationTables
        /// Each table's size in bytes (`tables.count` of them).
        var tableCount: Int
        /// MCUs between restart markers (nil or 0: none).
        var restartInterval: Int?
    }

    /// Appends the header of `picture` to `file`. Byte by byte and from constants: an array literal per
    /// marker would be an allocation per picture.
    static func write(_ picture: Picture, into file: inout [UInt8]) {
        file.append(0xFF)
        file.append(0xD8)  // SOI
        writeQuantizationTables(picture, into: &file)
        writeFrameHeader(picture, into: &file)
        file.append(contentsOf: huffmanSegment)
        if let interval = picture.restartInterval, interval > 0 {
            appendMarker(0xDD, length: 4, to: &file)  // DRI
            appendUInt16(interval, to: &file)
        }
        file.append(contentsOf: scanHeader)
    }

    /// SOS: three components, luminance with DC/AC tables 0, chrominance with tables 1; the whole spectrum.
    private static let scanHeader: [UInt8] = [0xFF, 0xDA, 0, 12, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]

    private static func appendMarker(_ marker: UInt8, length: Int, to file: inout [UInt8]) {
        file.append(0xFF)
        file.append(marker)
        appendUInt16(length, to: &file)
    }

    private static func appendUInt16(_ value: Int, to file: inout [UInt8]) {
        file.append(UInt8(truncatingIfNeeded: value >> 8))
        file.append(UInt8(truncatingIfNeeded: value))
    }

    /// One DQT segment with every table.
    private static func writeQuantizationTables(_ picture: Picture, into file: inout [UInt8]) {
        appendMarker(0xDB, length: 2 + picture.tableCount + picture.tables.bytes.count, to: &file)
        var position = 0
        for table in 0..<picture.tableCount {
            let sixteenBit = picture.tables.precision & (1 << table) != 0
            file.append((sixteenBit ? 0x10 : 0) | UInt8(table))
            let size = sixteenBit ? 128 : 64
            file.append(contentsOf: picture.tables.bytes[position..<(position + size)])
            position += size
        }
    }

    /// SOF0 (SOF1, extended, when a table has 16-bit entries): 8-bit samples, three components. With one
    /// table, every component uses it.
    private static func writeFrameHeader(_ picture: Picture, into file: inout [UInt8]) {
        let extended = picture.tables.precision & 0x0F != 0
        let chromaTable: UInt8 = picture.tableCount > 1 ? 1 : 0
        appendMarker(extended ? 0xC1 : 0xC0, length: 17, to: &file)
        file.append(8)
        appendUInt16(picture.height, to: &file)
        appendUInt16(picture.width, to: &file)
        file.append(3)
        for component: UInt8 in 1...3 {
            file.append(component)
            file.append(component == 1 ? (picture.baseType == 0 ? 0x21 : 0x22) : 0x11)
            file.append(component == 1 ? 0 : chromaTable)
        }
    }

    /// The four tables of ITU T.81 annex K.3 (K.3 to K.6) by their DHT class and identifier (class << 4 |
    /// identifier: DC 0 luminance, AC 0x10, DC 1 chrominance, AC 0x11): what RFC 2435 says a receiver uses,
    /// since the payload carries none.
    static let standardHuffmanTables: [(classAndID: UInt8, counts: [UInt8], symbols: [UInt8])] = [
        (0x00, dcLuminanceCounts, Array(0...11)),
        (0x10, acLuminanceCounts, acLuminanceSymbols),
        (0x01, dcChrominanceCounts, Array(0...11)),
        (0x11, acChrominanceCounts, acChrominanceSymbols),
    ]

    /// One DHT segment with the four standard tables.
    private static let huffmanSegment: [UInt8] = {
        var body: [UInt8] = []
        for table in standardHuffmanTables { body += [table.classAndID] + table.counts + table.symbols }
        let length = body.count + 2
        return [0xFF, 0xC4, UInt8(length >> 8), UInt8(length & 0xFF)] + body
    }()

    // ITU T.81 annex K.3: for each code length 1-16, how many codes; then the symbols in code order.
    private static let dcLuminanceCounts: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    private static let dcChrominanceCounts: [UInt8] = [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    private static let acLuminanceCounts: [UInt8] = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D]
    private static let acChrominanceCounts: [UInt8] = [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77]
    private static let acLuminanceSymbols: [UInt8] = [
        0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
        0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23, 0x42, 0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0,
        0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0A, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x25, 0x26, 0x27, 0x28,
        0x29, 0x2A, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
        0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
        0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
        0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7,
        0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3, 0xC4, 0xC5,
        0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xE1, 0xE2,
        0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8,
        0xF9, 0xFA,
    ]
    private static let acChrominanceSymbols: [UInt8] = [
        0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
        0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xA1, 0xB1, 0xC1, 0x09, 0x23, 0x33, 0x52, 0xF0,
        0x15, 0x62, 0x72, 0xD1, 0x0A, 0x16, 0x24, 0x34, 0xE1, 0x25, 0xF1, 0x17, 0x18, 0x19, 0x1A, 0x26,
        0x27, 0x28, 0x29, 0x2A, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
        0x49, 0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
        0x69, 0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
        0x88, 0x89, 0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5,
        0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3,
        0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA,
        0xE2, 0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8,
        0xF9, 0xFA,
    ]
}
