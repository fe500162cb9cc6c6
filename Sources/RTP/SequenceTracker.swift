/// Source validation and sequence-number extension as in RFC 3550 appendix A.1, with 64-bit extended
/// sequence numbers.
///
/// A source becomes valid after ``minSequential`` packets in sequence (probation). A jump of more than
/// ``maxDropout`` ahead or ``maxMisorder`` behind is rejected unless the next packet follows it, in which
/// case the tracker assumes the sender restarted and resynchronizes.
@_spi(SansIO) public struct SequenceTracker: Sendable {
    /// Packets in sequence needed before a source is valid (RFC 3550: 2).
    public let minSequential: Int
    /// The largest forward jump taken as loss rather than a restart (RFC 3550: 3000).
    public let maxDropout: UInt16
    /// The largest backward step taken as reordering rather than a restart (RFC 3550: 100).
    public let maxMisorder: UInt16

    /// What one packet did to the tracker.
    public enum Update: Hashable, Sendable {
        /// The source is still on probation; the packet is not counted.
        case probation
        /// The packet was counted. `isNewHighest` is false for a duplicate or a late (reordered) packet.
        case accepted(extendedSequence: UInt64, isNewHighest: Bool)
        /// The sender appears to have restarted its sequence; counting started again at this packet.
        case resynchronized(extendedSequence: UInt64)
        /// A jump too large to be loss or reordering; the packet is not counted.
        case rejected
    }

    var started = false
    var probation: Int
    var maxSeq: UInt16 = 0
    var cycles: UInt64 = 0
    var baseSeq: UInt64 = 0
    var badSeq: UInt32 = 0x1_0001  // RTP_SEQ_MOD + 1: matches no sequence number
    /// Packets counted since the source became valid (duplicates included), as A.1's `received`.
    public private(set) var received: UInt64 = 0

    /// Creates a tracker with RFC 3550's constants unless told otherwise.
    public init(minSequential: Int = 2, maxDropout: UInt16 = 3000, maxMisorder: UInt16 = 100) {
        self.minSequential = max(1, minSequential)
        self.maxDropout = maxDropout
        self.maxMisorder = maxMisorder
        self.probation = self.minSequential
    }

    /// Whether the source has passed probation.
    public var isValid: Bool { started && probation == 0 }

    /// The highest extended sequence number seen (A.1 `cycles + max_seq`).
    public var extendedHighestSequence: UInt64 { cycles + UInt64(maxSeq) }

    /// The extended sequence number counting started at (A.1 `base_seq`).
    public var extendedBaseSequence: UInt64 { baseSeq }

    /// Packets expected since counting started (A.3 `expected`).
    public var expected: UInt64 { isValid ? extendedHighestSequence &- baseSeq &+ 1 : 0 }

    /// Processes one packet's sequence number.
    public mutating func update(_ seq: UInt16) -> Update {
        if !started {
            started = true
            restart(at: seq)
            maxSeq = seq &- 1
            probation = minSequential
        }
        let udelta = seq &- maxSeq
        if probation > 0 {
            if seq == maxSeq &+ 1 {
                probation -= 1
                maxSeq = seq
                if probation == 0 {
                    restart(at: seq)
                    received += 1
                    return .accepted(extendedSequence: extendedHighestSequence, isNewHighest: true)
                }
            } else {
                probation = minSequential - 1
                maxSeq = seq
            }
            return .probation
        }
        if udelta < maxDropout {
            if seq < maxSeq { cycles += 0x1_0000 }
            let isNew = udelta != 0
            maxSeq = seq
            received += 1
            return .accepted(extendedSequence: extendedHighestSequence, isNewHighest: isNew)
        }
        if udelta <= UInt16.max - maxMisorder {
            if UInt32(seq) == badSeq {
                let nextCycle = (extendedHighestSequence >> 16 &+ 1) << 16
                restart(at: seq)
                cycles = nextCycle
                baseSeq = nextCycle + UInt64(seq)
                received += 1
                return .resynchronized(extendedSequence: extendedHighestSequence)
            }
            badSeq = (UInt32(seq) + 1) & 0xFFFF
            return .rejected
        }
        // A duplicate or a late packet, at most maxMisorder behind.
        received += 1
        let behind = UInt64(maxSeq &- seq)
        return .accepted(extendedSequence: extendedHighestSequence &- behind, isNewHighest: false)
    }

    mutating func restart(at seq: UInt16) {
        baseSeq = cycles + UInt64(seq)
        maxSeq = seq
        badSeq = 0x1_0001
        received = 0
    }
}
