/// Writes Opus packets as an Ogg Opus file (RFC 7845) that players open: the `OpusHead` and `OpusTags`
/// pages, then a page per packet with its granule position (48 kHz samples from the first packet's start).
///
/// ```swift
/// var writer = OggOpusWriter(channels: 2)
/// var out = writer.headers()
/// writer.write(frame.bytes, endingAt: granule, into: &out)   // for each Opus frame
/// writer.finish(into: &out)
/// ```
///
/// The pre-skip is 0: what the encoder's start-up cost is, RTP does not say.
public struct OggOpusWriter: Sendable {
    public let channels: Int
    private let serial: UInt32
    private var sequence: UInt32 = 0
    /// The last packet, held so that the final page can say it ends the stream.
    private var pending: (bytes: [UInt8], granule: UInt64)?

    /// Mono or stereo (channel mapping family 0). `serial` names the stream in the file.
    public init(channels: Int, serial: UInt32 = 0x5357_5254) {
        self.channels = min(2, max(1, channels))
        self.serial = serial
    }

    /// The identification and comment header pages: the file's start.
    public mutating func headers() -> [UInt8] {
        var head = Array("OpusHead".utf8)
        head += [1, UInt8(channels)]
        head += Self.le16(0)  // pre-skip
        head += Self.le32(48000)  // the input's rate, for information
        head += Self.le16(0) + [0]  // output gain, mapping family 0
        let vendor = Array("swift-rtp".utf8)
        let tags = Array("OpusTags".utf8) + Self.le32(UInt32(vendor.count)) + vendor + Self.le32(0)
        var out: [UInt8] = []
        page(head, granule: 0, flags: 0x02, into: &out)
        page(tags, granule: 0, flags: 0, into: &out)
        return out
    }

    /// Appends the page of the packet before this one; `granule` is the sample (at 48 kHz) where this one ends.
    public mutating func write(_ packet: ArraySlice<UInt8>, endingAt granule: UInt64, into out: inout [UInt8]) {
        if let previous = pending { page(previous.bytes, granule: previous.granule, flags: 0, into: &out) }
        pending = (Array(packet), granule)
    }

    /// Appends the last packet's page, marked as the end of the stream.
    public mutating func finish(into out: inout [UInt8]) {
        guard let last = pending else { return }
        page(last.bytes, granule: last.granule, flags: 0x04, into: &out)
        pending = nil
    }

    private mutating func page(_ packet: [UInt8], granule: UInt64, flags: UInt8, into out: inout [UInt8]) {
        // Lacing: 255 for each full segment, then the rest (0 when the size is a multiple of 255).
        var lacing = [UInt8](repeating: 255, count: packet.count / 255)
        lacing.append(UInt8(packet.count % 255))
        let start = out.count
        out += Array("OggS".utf8) + [0, flags]
        out += Self.le32(UInt32(truncatingIfNeeded: granule)) + Self.le32(UInt32(truncatingIfNeeded: granule >> 32))
        out += Self.le32(serial) + Self.le32(sequence) + [0, 0, 0, 0]
        out.append(UInt8(lacing.count))
        out += lacing
        out += packet
        let crc = OggCRC.checksum(out[start...])
        out.replaceSubrange((start + 22)..<(start + 26), with: Self.le32(crc))
        sequence &+= 1
    }

    /// Packets larger than this do not fit in one page (255 segments of 255 bytes).
    public static let maxPacketSize = 255 * 254

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> ($0 * 8)) & 0xFF) } }
}

/// Ogg's page checksum: CRC-32 with the polynomial 0x04C11DB7, not reflected, starting at 0.
enum OggCRC {
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? value << 1 ^ 0x04C1_1DB7 : value << 1 }
        return value
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes { crc = crc << 8 ^ table[Int((crc >> 24) ^ UInt32(byte))] }
        return crc
    }
}
