import RTP

/// Puts fragmented IPv4 and IPv6 datagrams back together, with bounded memory.
///
/// At most ``maxPending`` datagrams are in progress; the oldest is dropped when another starts. A
/// datagram not completed within ``timeout`` of its first fragment is dropped. Overlapping fragments
/// are accepted; the first copy of each byte wins.
struct FragmentReassembler: Sendable {
    struct Key: Hashable, Sendable {
        let source: IPAddress
        let destination: IPAddress
        let identification: UInt32
        let protocolNumber: UInt8
    }

    struct Pending: Sendable {
        var firstTime: ArrivalTime
        var bytes: [UInt8] = []
        var covered: [Range<Int>] = []
        var totalLength: Int?
    }

    static let maxPending = 64
    static let maxDatagram = 65_535
    static let timeout = Duration.seconds(30)

    private var pending: [Key: Pending] = [:]
    private var order: [Key] = []
    /// Datagrams dropped incomplete.
    private(set) var dropped = 0

    /// Adds a fragment: its payload bytes `data` at byte `offset` of the datagram; `more` is the MF flag.
    /// Returns the whole datagram's payload when this fragment completes it.
    mutating func add(_ key: Key, offset: Int, more: Bool, data: ArraySlice<UInt8>, time: ArrivalTime) -> [UInt8]? {
        expire(before: time)
        let end = offset + data.count
        guard end <= Self.maxDatagram else {
            discard(key)
            dropped += 1
            return nil
        }
        if pending[key] == nil {
            if order.count >= Self.maxPending, let oldest = order.first {
                discard(oldest)
                dropped += 1
            }
            pending[key] = Pending(firstTime: time)
            order.append(key)
        }
        // Taken out while it changes, so that writing into its bytes does not copy them.
        guard var entry = pending.removeValue(forKey: key) else { return nil }
        if entry.bytes.count < end { entry.bytes.append(contentsOf: repeatElement(0, count: end - entry.bytes.count)) }
        // Copy only the bytes no earlier fragment supplied.
        for i in 0..<data.count where !entry.covered.contains(where: { $0.contains(offset + i) }) {
            entry.bytes[offset + i] = data[data.startIndex + i]
        }
        entry.covered.append(offset..<end)
        if !more { entry.totalLength = end }
        if let total = entry.totalLength, Self.covers(entry.covered, total) {
            discard(key)
            return Array(entry.bytes[0..<total])
        }
        pending[key] = entry
        return nil
    }

    /// Counts what is still incomplete as dropped (at the end of a capture).
    mutating func finish() {
        dropped += pending.count
        pending.removeAll()
        order.removeAll()
    }

    private mutating func expire(before time: ArrivalTime) {
        while let oldest = order.first, let entry = pending[oldest], time - entry.firstTime > Self.timeout {
            discard(oldest)
            dropped += 1
        }
    }

    private mutating func discard(_ key: Key) {
        pending[key] = nil
        order.removeAll { $0 == key }
    }

    private static func covers(_ ranges: [Range<Int>], _ total: Int) -> Bool {
        var reached = 0
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if range.lowerBound > reached { return false }
            reached = max(reached, range.upperBound)
        }
        return reached >= total
    }
}
