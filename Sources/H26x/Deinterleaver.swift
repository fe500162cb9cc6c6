/// Puts NAL units back into decoding order by their decoding order number (DON, RFC 6184 section 5.5,
/// RFC 7798 section 4.4): for interleaved H.264 and H.265 with DONL. Holds at most `depth` NAL units and
/// `maxBytes` bytes; releases the lowest DON first, comparing DONs modulo 2^16.
struct Deinterleaver: Sendable {
    struct Entry: Sendable {
        var don: UInt16
        var timestamp: UInt64
        var bytes: [UInt8]
    }

    let depth: Int
    let maxBytes: Int
    private var entries: [Entry] = []
    private var bytes = 0
    private var lastReleased: UInt16?

    init(depth: Int, maxBytes: Int) {
        self.depth = depth
        self.maxBytes = maxBytes
    }

    var isEmpty: Bool { entries.isEmpty }

    mutating func insert(_ entry: Entry) {
        entries.append(entry)
        bytes += entry.bytes.count
    }

    /// The next NAL unit in decoding order, when the buffer is past its limits (or with `all`, while any is held).
    mutating func next(all: Bool) -> Entry? {
        guard !entries.isEmpty, all || entries.count > depth || bytes > maxBytes else { return nil }
        // DONs compare as signed 16-bit distances from a reference: the last released, or the first held.
        let reference = lastReleased ?? entries[0].don
        var best = 0
        for i in entries.indices.dropFirst()
        where Int16(bitPattern: entries[i].don &- reference) < Int16(bitPattern: entries[best].don &- reference) {
            best = i
        }
        let entry = entries.remove(at: best)
        bytes -= entry.bytes.count
        lastReleased = entry.don
        return entry
    }
}
