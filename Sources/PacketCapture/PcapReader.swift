import RTP

/// Reads classic pcap files: microsecond and nanosecond timestamps, either byte order.
///
/// Records are slices of the chunk of the file they are in (no copy).
package struct PcapReader: Sendable {
    /// The largest record accepted, whatever the header's snaplen says (tcpdump's own limit is 256 KiB).
    package static let maxRecordLength = 1 << 20

    package let linkType: LinkType
    package let snapLength: Int
    package let nanosecondResolution: Bool
    let bigEndian: Bool
    var window: CaptureWindow
    var index = 0
    /// What was skipped over; ``CaptureWarnings/truncatedAtEnd`` is set when the file ends mid-record.
    package private(set) var warnings = CaptureWarnings()

    /// Whether `data` starts with a pcap magic number.
    package static func matches(_ data: ArraySlice<UInt8>) -> Bool {
        guard let magic = data.u32(at: 0) else { return false }
        return [0xA1B2_C3D4, 0xD4C3_B2A1, 0xA1B2_3C4D, 0x4D3C_B2A1].contains(magic)
    }

    /// Reads the file header from a whole file held in memory.
    package init(_ data: ArraySlice<UInt8>) throws(CaptureError) {
        try self.init(window: CaptureWindow(data, isFinal: true))
    }

    init(window: CaptureWindow) throws(CaptureError) {
        let data = window.data
        guard let magic = data.u32(at: 0), data.count >= 24 else {
            throw CaptureError(.notACapture, "file too short for a pcap header (\(data.count) bytes)", offset: 0)
        }
        switch magic {
        case 0xA1B2_C3D4: (bigEndian, nanosecondResolution) = (true, false)
        case 0xD4C3_B2A1: (bigEndian, nanosecondResolution) = (false, false)
        case 0xA1B2_3C4D: (bigEndian, nanosecondResolution) = (true, true)
        case 0x4D3C_B2A1: (bigEndian, nanosecondResolution) = (false, true)
        default:
            throw CaptureError(.notACapture, "not a pcap file (magic number 0x\(String(magic, radix: 16)))", offset: 0)
        }
        let major = data.u16(at: 4, bigEndian: bigEndian) ?? 0
        guard major == 2 else {
            throw CaptureError(.unsupportedVersion, "pcap version \(major) is not supported (expected 2)", offset: 4)
        }
        self.snapLength = Int(data.u32(at: 16, bigEndian: bigEndian) ?? 0)
        // The upper bits of the link-type field may carry FCS information; the type is the low 16 bits.
        self.linkType = LinkType(rawValue: (data.u32(at: 20, bigEndian: bigEndian) ?? 0) & 0xFFFF)
        self.window = window
        self.window.offset = 24
    }

    /// The next record; `nil` at the end of the file, where the file is cut mid-record, or when the
    /// record runs past the chunk in memory (then ``CaptureWindow/needed`` is set).
    ///
    /// - Throws: ``CaptureError`` when a record's lengths cannot be right (the file is damaged from there on).
    package mutating func next() throws(CaptureError) -> CaptureRecord? {
        guard window.remaining > 0 || !window.isFinal else { return nil }
        guard window.has(16) else { return endOfData() }
        // Read from the chunk at the record's offset: slicing the unread rest first would cost a retain
        // and a release of the chunk per record.
        let data = window.data
        let at = window.offset
        guard let seconds = data.u32(at: at, bigEndian: bigEndian),
            let fraction = data.u32(at: at + 4, bigEndian: bigEndian),
            let captured = data.u32(at: at + 8, bigEndian: bigEndian),
            let original = data.u32(at: at + 12, bigEndian: bigEndian)
        else { return endOfData() }
        guard captured <= Self.maxRecordLength else {
            throw CaptureError(
                .malformedRecord,
                "pcap record \(index) claims \(captured) captured bytes, more than the \(Self.maxRecordLength) allowed;"
                    + " the file is damaged from here on", offset: window.position)
        }
        guard window.has(16 + Int(captured)), let frame = data.bytes(at: at + 16, length: Int(captured)) else {
            return endOfData()
        }
        let nanos = nanosecondResolution ? Int64(fraction) : Int64(fraction) * 1000
        let result = CaptureRecord(
            index: index, time: ArrivalTime(nanoseconds: Int64(seconds) * 1_000_000_000 + nanos), linkType: linkType,
            data: frame, originalLength: max(Int(original), Int(captured)))
        window.offset += 16 + Int(captured)
        index += 1
        return result
    }

    /// Out of bytes: either more must be read (the window asked for them) or the file was cut short.
    private mutating func endOfData() -> CaptureRecord? {
        if window.needed == nil {
            warnings.truncatedAtEnd = true
            window.offset = window.data.count
        }
        return nil
    }
}
