import RTP

/// Reads pcapng files: section header, interface description, enhanced and simple packet blocks (and the
/// obsolete packet block), several interfaces and sections, per-interface timestamp resolution and offset.
package struct PcapngReader: Sendable {
    /// The largest block accepted.
    package static let maxBlockLength = 16 << 20

    struct Interface: Sendable {
        var linkType: LinkType
        var snapLength: Int
        /// Timestamp units per second, as a power: 10^exponent or 2^exponent.
        var unitsPerSecond: UInt64 = 1_000_000
        var offsetSeconds: Int64 = 0
    }

    var window: CaptureWindow
    var index = 0
    var bigEndian = false
    var interfaces: [Interface] = []
    var lastTime = ArrivalTime(nanoseconds: 0)
    /// What was skipped over.
    package private(set) var warnings = CaptureWarnings()

    /// Whether `data` starts with a pcapng section header block.
    package static func matches(_ data: ArraySlice<UInt8>) -> Bool {
        data.u32(at: 0) == 0x0A0D_0D0A
    }

    /// Prepares to read a whole file held in memory; the first block must be a section header.
    package init(_ data: ArraySlice<UInt8>) throws(CaptureError) {
        try self.init(window: CaptureWindow(data, isFinal: true))
    }

    init(window: CaptureWindow) throws(CaptureError) {
        guard Self.matches(window.data) else {
            throw CaptureError(.notACapture, "not a pcapng file (no section header block)", offset: 0)
        }
        self.window = window
    }

    /// The next packet record; `nil` at the end of the file, where the file is cut mid-block, or when the
    /// block runs past the chunk in memory (then ``CaptureWindow/needed`` is set).
    package mutating func next() throws(CaptureError) -> CaptureRecord? {
        while window.remaining > 0 || !window.isFinal {
            guard window.has(12), let type = window.unread.u32(at: 0, bigEndian: bigEndian) else {
                return endOfData()
            }
            if type == 0x0A0D_0D0A {
                guard window.has(16) else { return endOfData() }
                try readSectionHeader()
            }
            guard let length = window.unread.u32(at: 4, bigEndian: bigEndian).map(Int.init) else { return endOfData() }
            guard length >= 12, length % 4 == 0, length <= Self.maxBlockLength else {
                throw CaptureError(
                    .malformedRecord,
                    "pcapng block of type 0x\(String(type, radix: 16)) has invalid length \(length);"
                        + " the file is damaged from here on", offset: window.position)
            }
            guard window.has(length), let block = window.unread.bytes(at: 0, length: length) else { return endOfData() }
            let body = block[(block.startIndex + 8)..<(block.endIndex - 4)]
            let blockOffset = window.position
            window.offset += length
            switch type {
            case 0x0A0D_0D0A: continue
            case 1: try addInterface(body, at: blockOffset)
            case 6:
                if let record = try enhancedPacket(body, at: blockOffset) { return record }
            case 3:
                if let record = try simplePacket(body, at: blockOffset) { return record }
            case 2:
                if let record = try obsoletePacket(body, at: blockOffset) { return record }
            default: warnings.skippedBlocks += 1
            }
        }
        return nil
    }

    /// Out of bytes: either more must be read (the window asked for them) or the file was cut short.
    private mutating func endOfData() -> CaptureRecord? {
        if window.needed == nil {
            warnings.truncatedAtEnd = true
            window.offset = window.data.count
        }
        return nil
    }

    private mutating func readSectionHeader() throws(CaptureError) {
        let data = window.unread
        guard let magic = data.u32(at: 8) else { return }
        switch magic {
        case 0x1A2B_3C4D: bigEndian = true
        case 0x4D3C_2B1A: bigEndian = false
        default:
            throw CaptureError(
                .notACapture, "pcapng section header has a bad byte-order magic", offset: window.position + 8)
        }
        let major = data.u16(at: 12, bigEndian: bigEndian) ?? 0
        guard major == 1 else {
            throw CaptureError(
                .unsupportedVersion, "pcapng version \(major) is not supported (expected 1)", offset: window.position)
        }
        interfaces.removeAll()
    }

    private mutating func addInterface(_ body: ArraySlice<UInt8>, at blockOffset: Int) throws(CaptureError) {
        guard let type = body.u16(at: 0, bigEndian: bigEndian), let snap = body.u32(at: 4, bigEndian: bigEndian) else {
            throw CaptureError(.malformedRecord, "pcapng interface block too short", offset: blockOffset)
        }
        var interface = Interface(linkType: LinkType(rawValue: UInt32(type)), snapLength: Int(snap))
        var option = 8
        while let code = body.u16(at: option, bigEndian: bigEndian), code != 0,
            let length = body.u16(at: option + 2, bigEndian: bigEndian).map(Int.init),
            let value = body.bytes(at: option + 4, length: length)
        {
            if code == 9, let resolution = value.first {
                // if_tsresol: 10^-n, or 2^-n when the top bit is set.
                let exponent = UInt64(resolution & 0x7F)
                if resolution & 0x80 != 0 {
                    interface.unitsPerSecond = exponent < 63 ? 1 << exponent : 1 << 62
                } else {
                    interface.unitsPerSecond = exponent <= 18 ? (0..<exponent).reduce(1) { r, _ in r * 10 } : 1
                }
            } else if code == 14, let seconds = value.u64(at: 0, bigEndian: bigEndian) {
                interface.offsetSeconds = Int64(bitPattern: seconds)
            }
            option += 4 + (length + 3) / 4 * 4
        }
        interfaces.append(interface)
    }

    private mutating func enhancedPacket(_ body: ArraySlice<UInt8>, at blockOffset: Int) throws(CaptureError)
        -> CaptureRecord?
    {
        guard let id = body.u32(at: 0, bigEndian: bigEndian), let high = body.u32(at: 4, bigEndian: bigEndian),
            let low = body.u32(at: 8, bigEndian: bigEndian), let captured = body.u32(at: 12, bigEndian: bigEndian),
            let original = body.u32(at: 16, bigEndian: bigEndian)
        else { throw CaptureError(.malformedRecord, "pcapng enhanced packet block too short", offset: blockOffset) }
        guard let frame = body.bytes(at: 20, length: Int(captured)) else {
            throw CaptureError(
                .malformedRecord, "pcapng packet claims \(captured) bytes, more than its block holds",
                offset: blockOffset)
        }
        let interface = try self.interface(Int(id), at: blockOffset)
        return makeRecord(interface, frame: frame, original: Int(original), units: UInt64(high) << 32 | UInt64(low))
    }

    private mutating func obsoletePacket(_ body: ArraySlice<UInt8>, at blockOffset: Int) throws(CaptureError)
        -> CaptureRecord?
    {
        guard let id = body.u16(at: 0, bigEndian: bigEndian), let high = body.u32(at: 4, bigEndian: bigEndian),
            let low = body.u32(at: 8, bigEndian: bigEndian), let captured = body.u32(at: 12, bigEndian: bigEndian),
            let original = body.u32(at: 16, bigEndian: bigEndian),
            let frame = body.bytes(at: 20, length: Int(captured))
        else { throw CaptureError(.malformedRecord, "pcapng packet block malformed", offset: blockOffset) }
        let interface = try self.interface(Int(id), at: blockOffset)
        return makeRecord(interface, frame: frame, original: Int(original), units: UInt64(high) << 32 | UInt64(low))
    }

    private mutating func simplePacket(_ body: ArraySlice<UInt8>, at blockOffset: Int) throws(CaptureError)
        -> CaptureRecord?
    {
        guard let original = body.u32(at: 0, bigEndian: bigEndian) else {
            throw CaptureError(.malformedRecord, "pcapng simple packet block too short", offset: blockOffset)
        }
        let interface = try self.interface(0, at: blockOffset)
        var length = min(Int(original), body.count - 4)
        if interface.snapLength > 0 { length = min(length, interface.snapLength) }
        guard let frame = body.bytes(at: 4, length: length) else { return nil }
        // A simple packet block has no timestamp: it inherits the previous record's.
        let record = CaptureRecord(
            index: index, time: lastTime, linkType: interface.linkType, data: frame,
            originalLength: max(Int(original), length))
        index += 1
        return record
    }

    private func interface(_ id: Int, at blockOffset: Int) throws(CaptureError) -> Interface {
        guard id < interfaces.count else {
            throw CaptureError(
                .malformedRecord, "pcapng packet names interface \(id) but only \(interfaces.count) are described",
                offset: blockOffset)
        }
        return interfaces[id]
    }

    private mutating func makeRecord(_ interface: Interface, frame: ArraySlice<UInt8>, original: Int, units: UInt64)
        -> CaptureRecord
    {
        let perSecond = interface.unitsPerSecond
        let seconds = units / perSecond
        let fraction = (units % perSecond).multipliedFullWidth(by: 1_000_000_000)
        let nanos = perSecond.dividingFullWidth(fraction).quotient
        let total = (Int64(clamping: seconds) &+ interface.offsetSeconds).multipliedReportingOverflow(by: 1_000_000_000)
        lastTime = ArrivalTime(nanoseconds: total.partialValue &+ Int64(nanos))
        let record = CaptureRecord(
            index: index, time: lastTime, linkType: interface.linkType, data: frame,
            originalLength: max(original, frame.count))
        index += 1
        return record
    }
}
