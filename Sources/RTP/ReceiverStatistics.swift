/// Reception statistics for one RTP source, as RFC 3550 appendix A.3 (loss) and A.8 (interarrival
/// jitter) define them, plus duplicate and reordering counts.
///
/// Feed it every packet in arrival order, before any reordering, with the time it arrived.
public struct ReceiverStatistics: Sendable {
    /// The media clock rate in Hz, used to express arrival times in timestamp units for jitter.
    public let clockRate: Int
    /// The sequence tracker (A.1) the loss figures come from.
    @_spi(SansIO) public private(set) var tracker: SequenceTracker
    /// Every packet given to ``record(sequenceNumber:timestamp:arrival:)``, whatever its fate.
    public private(set) var packets: UInt64 = 0
    /// Packets whose sequence number had been seen already.
    public private(set) var duplicates: UInt64 = 0
    /// Packets that arrived after a higher sequence number (late, not duplicates).
    public private(set) var reordered: UInt64 = 0
    /// The interarrival jitter estimate, in timestamp units (A.8 `jitter`, without the 1/16 scaling).
    public private(set) var jitter: Double = 0
    /// The time of the first and the latest packet.
    public private(set) var firstArrival: ArrivalTime?
    public private(set) var lastArrival: ArrivalTime?

    private var lastTransit: Double?
    private var seen = RecentSequenceWindow()
    private var expectedPrior: UInt64 = 0
    private var receivedPrior: UInt64 = 0

    /// Creates empty statistics for a source whose timestamps tick at `clockRate` Hz.
    public init(clockRate: Int) {
        self.init(clockRate: clockRate, tracker: SequenceTracker())
    }

    /// Creates empty statistics whose loss figures come from `tracker` (its probation and dropout limits).
    @_spi(SansIO) public init(clockRate: Int, tracker: SequenceTracker) {
        self.clockRate = max(1, clockRate)
        self.tracker = tracker
    }

    /// Accounts for one packet.
    public mutating func record(sequenceNumber: UInt16, timestamp: UInt32, arrival: ArrivalTime) {
        packets += 1
        if firstArrival == nil { firstArrival = arrival }
        lastArrival = arrival
        switch tracker.update(sequenceNumber) {
        case .probation, .rejected:
            break
        case .resynchronized(let extended):
            seen.reset()
            seen.insert(extended)
            expectedPrior = 0
            receivedPrior = 0
        case .accepted(let extended, let isNewHighest):
            if isNewHighest {
                seen.advance(to: extended)
                seen.insert(extended)
            } else if seen.contains(extended) {
                duplicates += 1
            } else {
                reordered += 1
                seen.insert(extended)
            }
        }
        // A.8: transit time in timestamp units; its variation smoothed with gain 1/16.
        let arrivalUnits = Double(arrival.nanoseconds) * Double(clockRate) / 1e9
        let transit = arrivalUnits - Double(timestamp)
        if let lastTransit {
            var d = transit - lastTransit
            // Timestamps are modulo 2^32: across a wrap, take the shorter way round.
            if d > 2_147_483_648 { d -= 4_294_967_296 } else if d < -2_147_483_648 { d += 4_294_967_296 }
            jitter += (abs(d) - jitter) / 16
        }
        lastTransit = transit
    }

    /// Packets expected from the sequence numbers (A.3).
    public var expected: UInt64 { tracker.expected }

    /// Cumulative packets lost: expected minus received (A.3). Negative when duplicates outnumber losses.
    public var lost: Int64 { Int64(bitPattern: expected) &- Int64(bitPattern: tracker.received) }

    /// The jitter in milliseconds.
    public var jitterMilliseconds: Double { jitter * 1000 / Double(clockRate) }

    /// A report block for this source covering the interval since the previous call (A.3 fraction lost),
    /// for an RTCP receiver report.
    ///
    /// - Parameters:
    ///   - ssrc: the source this block reports on.
    ///   - lastSenderReport: the middle 32 bits of the NTP time of the last SR received (0 if none).
    ///   - delaySinceLastSenderReport: time since that SR, in units of 1/65536 s (0 if none).
    @_spi(SansIO) public mutating func makeReportBlock(
        ssrc: UInt32, lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0
    ) -> RTCPReportBlock {
        let expectedInterval = Int64(bitPattern: expected &- expectedPrior)
        let receivedInterval = Int64(bitPattern: tracker.received &- receivedPrior)
        expectedPrior = expected
        receivedPrior = tracker.received
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8 =
            expectedInterval == 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        let cumulative = Int32(clamping: min(max(lost, -0x80_0000), 0x7F_FFFF))
        return RTCPReportBlock(
            ssrc: ssrc, fractionLost: fraction, cumulativeLost: cumulative,
            extendedHighestSequence: UInt32(truncatingIfNeeded: tracker.extendedHighestSequence),
            jitter: UInt32(min(jitter, Double(UInt32.max))), lastSenderReport: lastSenderReport,
            delaySinceLastSenderReport: delaySinceLastSenderReport)
    }
}

/// Which of the last 1024 extended sequence numbers have been seen, in a fixed bitmap.
struct RecentSequenceWindow: Sendable {
    static let size: UInt64 = 1024
    private var words = [UInt64](repeating: 0, count: Int(size / 64))
    private var highest: UInt64?

    mutating func reset() {
        for i in words.indices { words[i] = 0 }
        highest = nil
    }

    /// Moves the window's top to `extended`, forgetting the numbers that fall out of it.
    mutating func advance(to extended: UInt64) {
        guard let top = highest else {
            highest = extended
            return
        }
        guard extended > top else { return }
        if extended - top >= Self.size {
            for i in words.indices { words[i] = 0 }
        } else {
            var n = top + 1
            while n <= extended {
                clear(n)
                n += 1
            }
        }
        highest = extended
    }

    func contains(_ extended: UInt64) -> Bool {
        guard let top = highest, extended <= top, top - extended < Self.size else { return false }
        let bit = extended % Self.size
        return words[Int(bit / 64)] & (1 << (bit % 64)) != 0
    }

    mutating func insert(_ extended: UInt64) {
        guard let top = highest, extended <= top, top - extended < Self.size else { return }
        let bit = extended % Self.size
        words[Int(bit / 64)] |= 1 << (bit % 64)
    }

    private mutating func clear(_ extended: UInt64) {
        let bit = extended % Self.size
        words[Int(bit / 64)] &= ~(1 << (bit % 64))
    }
}
