/// Puts the packets of one RTP source back into sequence order, bounded by packet count and by time,
/// and reports every gap it gives up on as an explicit loss.
///
/// Insert each packet as it arrives, then call ``next(now:)`` until it returns `nil`:
///
/// ```swift
/// var buffer = ReorderBuffer()
/// buffer.insert(packet, arrival: now)
/// while let output = buffer.next(now: now) {
///     switch output {
///     case .packet(let packet, _): depacketizer.push(packet)
///     case .loss(let loss): depacketizer.noteLoss(loss.count)
///     case .discontinuity: depacketizer.reset()
///     }
/// }
/// ```
///
/// A missing packet is waited for until the oldest packet behind the gap has waited ``Configuration/maxDelay``,
/// or until more than ``Configuration/maxPackets`` are held; then the gap is released as a loss. Duplicates
/// and packets older than what was already released are dropped and counted. A jump of more than
/// ``Configuration/maxDropout`` is taken as a sender restart when the next packet follows it (RFC 3550 A.1):
/// what is held is released, then a ``Output/discontinuity``.
///
/// A packet with another SSRC than the buffer's source is a restart at once: cameras start a new SSRC per
/// GOP or after an encoder restart, and the new sequence numbers have nothing to do with the old. What is
/// held is released, then a ``Output/discontinuity``, then the new source's packets. Stragglers of the
/// source just left are dropped as late. (Keep one buffer per SSRC where SSRCs are separate streams.)
/// Unless the new SSRC's sequence numbers and timestamps carry on from the last packet's (a proxy that
/// renumbers its source): then it is the same stream under a new name (``relabels``), ordered as one.
///
/// Storage is a ring sized for ``Configuration/maxPackets``; a packet that lands further ahead (a gap of
/// more than that) grows it, up to what ``Configuration/maxDropout`` needs, once. In-order packets cost O(1)
/// and allocate nothing. Time is always an input, never read from a clock.
public struct ReorderBuffer: Sendable {
    /// Limits of a reorder buffer.
    public struct Configuration: Sendable, Hashable {
        /// The most packets held while waiting for a missing one. Default 500 (FFmpeg's RTP demuxer uses 500).
        public var maxPackets: Int
        /// How long a packet may wait behind a gap. Default 100 ms (FFmpeg: 100 ms; GStreamer's
        /// rtpjitterbuffer: 200 ms). Zero releases gaps at once: ordering only within one `next` batch.
        public var maxDelay: Duration
        /// The largest forward jump taken as loss; beyond it, a jump is a restart candidate. Default 3000
        /// (RFC 3550 A.1's MAX_DROPOUT).
        public var maxDropout: Int
        /// How far behind the next packet to release a packet may be and still count as late rather than
        /// as a jump. Default 1000.
        public var maxMisorder: Int

        public init(
            maxPackets: Int = 500, maxDelay: Duration = .milliseconds(100), maxDropout: Int = 3000,
            maxMisorder: Int = 1000
        ) {
            self.maxPackets = min(max(1, maxPackets), 16_384)
            self.maxDelay = maxDelay
            self.maxDropout = min(max(maxDropout, self.maxPackets), 16_384)
            self.maxMisorder = min(max(1, maxMisorder), 65_536 - 1 - self.maxDropout)
        }
    }

    /// A run of sequence numbers that were never received.
    public struct Loss: Hashable, Sendable {
        /// The extended sequence number of the first missing packet.
        public let firstSequence: UInt64
        /// How many consecutive packets are missing.
        public let count: Int
    }

    /// What ``next(now:)`` releases.
    public enum Output: Sendable {
        /// The next packet in order, with its extended (64-bit) sequence number.
        case packet(RTPPacket, extendedSequence: UInt64)
        /// Packets that will never be released.
        case loss(Loss)
        /// The sender restarted its sequence numbers; what follows does not continue what came before.
        case discontinuity
    }

    /// What happened to an inserted packet.
    public enum InsertResult: Hashable, Sendable {
        /// Held until its turn.
        case buffered
        /// Dropped: the same sequence number is already held.
        case duplicate
        /// Dropped: its sequence number was already released or given up as lost.
        case late
        /// Dropped: a jump too large to be loss; if the next packet follows it, the source restarts.
        case jump
        /// Accepted as the first packet after a sender restart; released after a ``Output/discontinuity``.
        case restart
    }

    struct Slot: Sendable {
        var packet: RTPPacket?
        var arrival: ArrivalTime
    }

    /// The limits in force.
    public let configuration: Configuration
    private var slots: [Slot]
    private var mask: UInt64
    /// The most slots the ring grows to: a power of two above ``Configuration/maxDropout``, so that every
    /// packet accepted as ahead has its own slot.
    private let maxSlots: Int
    private let maxDelayNanoseconds: Int64
    /// The extended sequence number released next; nil before the first packet.
    private var head: UInt64?
    private var held = 0
    private var highest: UInt64 = 0
    private var releasedAny = false
    private var jumpCandidate: UInt16?
    private var pendingRestart: (packet: RTPPacket, arrival: ArrivalTime)?
    /// The SSRC of the source being ordered, and the one before it (whose stragglers are late).
    private var ssrc: UInt32?
    private var previousSSRC: UInt32?
    /// The SSRC the stream had before it was relabelled (its packets are the stream's), if it was.
    private var relabeledFrom: UInt32?
    /// The RTP timestamp of the packet numbered ``highest``.
    private var highestTimestamp: UInt32 = 0

    /// Packets held now.
    public var count: Int { held }
    /// Totals since creation.
    public private(set) var duplicates = 0
    public private(set) var late = 0
    public private(set) var jumps = 0
    public private(set) var lost = 0
    public private(set) var released = 0
    public private(set) var restarts = 0
    /// Restarts that were a change of SSRC (counted in ``restarts`` too).
    public private(set) var sourceChanges = 0
    /// Changes of SSRC whose packets carried on the sequence numbers and timestamps: the same stream, not
    /// a restart.
    public private(set) var relabels = 0

    /// Creates an empty buffer; its ring is allocated here, for ``Configuration/maxPackets``. (Sized for the
    /// largest jump instead, 4,096 slots of 80 bytes, it was a third of a live session's memory.)
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var most = 1
        while most <= configuration.maxDropout + 1 { most <<= 1 }
        var size = 64
        while size <= configuration.maxPackets && size < most { size <<= 1 }
        self.maxSlots = most
        self.slots = [Slot](repeating: Self.empty, count: size)
        self.mask = UInt64(size - 1)
        self.maxDelayNanoseconds = configuration.maxDelay.nanosecondCount
    }

    private static let empty = Slot(packet: nil, arrival: ArrivalTime(nanoseconds: 0))

    /// How many packets the ring has room for now (it grows when a gap is wider).
    var ringCapacity: Int { slots.count }

    /// Offers a packet that arrived at `arrival`. Call ``next(now:)`` until `nil` afterwards.
    @discardableResult
    public mutating func insert(_ packet: consuming RTPPacket, arrival: ArrivalTime) -> InsertResult {
        guard let start = head else {
            // The extended numbering starts one cycle up, so that early stragglers still have a number.
            let first = 0x1_0000 + UInt64(packet.sequenceNumber)
            head = first
            highest = first
            highestTimestamp = packet.timestamp
            ssrc = packet.ssrc
            store(packet, at: first, arrival: arrival)
            return .buffered
        }
        if packet.ssrc != ssrc && packet.ssrc != relabeledFrom {
            guard continuesStream(packet) else { return noteSourceChange(packet, arrival: arrival) }
            // The same stream under a new name (a proxy or camera that renumbers its source every GOP):
            // stragglers under the old name still belong.
            relabeledFrom = ssrc
            ssrc = packet.ssrc
            relabels += 1
        }
        // As RFC 3550 A.1: up to maxDropout ahead is ahead, up to maxMisorder behind is behind, the rest a jump.
        let ahead = Int(packet.sequenceNumber &- UInt16(truncatingIfNeeded: start))
        let delta = ahead <= configuration.maxDropout ? ahead : ahead - 65_536
        if delta < -configuration.maxMisorder {
            return noteJump(packet, arrival: arrival)
        }
        let extended = UInt64(Int64(start) + Int64(delta))
        if delta < 0 {
            // Before anything is released, an earlier packet moves the start back (first packets swapped).
            if !releasedAny && highest - extended < UInt64(maxSlots) && -delta <= configuration.maxPackets {
                if highest - extended >= UInt64(slots.count) { grow(toHold: Int(highest - extended) + 1) }
                head = extended
                store(packet, at: extended, arrival: arrival)
                return .buffered
            }
            late += 1
            return .late
        }
        jumpCandidate = nil
        if delta >= slots.count { grow(toHold: delta + 1) }
        if slots[Int(extended & mask)].packet != nil {
            duplicates += 1
            return .duplicate
        }
        if extended > highest {
            highest = extended
            highestTimestamp = packet.timestamp
        }
        store(packet, at: extended, arrival: arrival)
        return .buffered
    }

    /// Whether `packet` is the one released next while nothing is held: the usual packet, which
    /// ``releaseInOrder(_:)`` hands on at once instead of storing it in the ring and taking it out again.
    public func isNextInOrder(_ packet: borrowing RTPPacket) -> Bool {
        guard held == 0, pendingRestart == nil, let head, packet.ssrc == ssrc else { return false }
        return packet.sequenceNumber == UInt16(truncatingIfNeeded: head)
    }

    /// Releases a packet ``isNextInOrder(_:)`` said is next, as ``insert(_:arrival:)`` then ``next(now:)`` would
    /// (counted, numbered), and returns its extended sequence number: the caller hands the packet on itself.
    public mutating func releaseInOrder(_ packet: borrowing RTPPacket) -> UInt64 {
        let extended = head ?? 0x1_0000 + UInt64(packet.sequenceNumber)
        jumpCandidate = nil
        if extended > highest {
            highest = extended
            highestTimestamp = packet.timestamp
        }
        head = extended + 1
        released += 1
        releasedAny = true
        return extended
    }

    /// Whether a packet of another SSRC carries on this stream: its sequence number just after the highest
    /// (a little reordering or loss either way) and its timestamp close to that packet's. A restarted
    /// sender draws both anew (RFC 3550 section 5.1), so it almost never lands in this window.
    private func continuesStream(_ packet: RTPPacket) -> Bool {
        Self.carriesOn(
            sequence: packet.sequenceNumber, timestamp: packet.timestamp,
            after: (UInt16(truncatingIfNeeded: highest), highestTimestamp))
    }

    /// Whether a packet numbered `sequence` at `timestamp` carries on a stream whose latest packet was
    /// `last`: within ``relabelWindow`` packets and ``relabelTicks`` ticks of it, either way. What tells a
    /// relabelled source from a restarted one, here and wherever streams are told apart by SSRC.
    public static func carriesOn(
        sequence: UInt16, timestamp: UInt32, after last: (sequence: UInt16, timestamp: UInt32)
    ) -> Bool {
        let step = Int(Int16(bitPattern: sequence &- last.sequence))
        let ticks = Int64(Int32(bitPattern: timestamp &- last.timestamp))
        return (-relabelWindow...relabelWindow).contains(step) && step != 0
            && (-relabelTicks...relabelTicks).contains(ticks)
    }

    /// How far a relabelled stream's sequence numbers and timestamps may be from the last packet's: 64
    /// packets, and 2^20 ticks (about 11 s at 90 kHz).
    public static let relabelWindow = 64
    public static let relabelTicks: Int64 = 1 << 20

    /// The next thing to hand on, or `nil` when the head of the sequence must still wait (or nothing is held).
    ///
    /// `now` decides whether a gap has waited long enough to be given up as lost.
    public mutating func next(now: ArrivalTime) -> Output? {
        release(now: now, force: false)
    }

    /// Releases everything held, in order, with the gaps as losses: for the end of a stream.
    public mutating func flush() -> Output? {
        release(now: ArrivalTime(nanoseconds: .max), force: true)
    }

    private mutating func release(now: ArrivalTime, force: Bool) -> Output? {
        guard let start = head else { return nil }
        // Nothing held (the common answer to the call after an in-order packet): the ring is not touched.
        if held == 0 {
            return pendingRestart == nil ? nil : takePendingRestart()
        }
        let index = Int(start & mask)
        // Taken, not copied and cleared: moving the packet out costs no retain and release of its bytes.
        if let packet = slots[index].packet.take() {
            held -= 1
            head = start + 1
            released += 1
            releasedAny = true
            return .packet(packet, extendedSequence: start)
        }
        // The head is missing: find the first packet held behind the gap.
        var next = start + 1
        while slots[Int(next & mask)].packet == nil { next += 1 }
        let waited = now.nanoseconds &- slots[Int(next & mask)].arrival.nanoseconds
        guard force || pendingRestart != nil || held > configuration.maxPackets || waited >= maxDelayNanoseconds
        else { return nil }
        let loss = Loss(firstSequence: start, count: Int(next - start))
        lost += loss.count
        head = next
        releasedAny = true
        return .loss(loss)
    }

    /// Moves the held packets into a ring of at least `span` slots (a power of two, at most ``maxSlots``):
    /// each keeps its extended sequence number, which says its new slot.
    private mutating func grow(toHold span: Int) {
        var size = slots.count
        while size < span && size < maxSlots { size <<= 1 }
        guard size > slots.count else { return }
        var grown = [Slot](repeating: Self.empty, count: size)
        let grownMask = UInt64(size - 1)
        if let start = head, held > 0 {
            // Every held packet lies in head ..< head + the old size (nothing is stored beyond it).
            for extended in start..<(start + UInt64(slots.count)) where slots[Int(extended & mask)].packet != nil {
                grown[Int(extended & grownMask)] = slots[Int(extended & mask)]
            }
        }
        slots = grown
        mask = grownMask
    }

    private mutating func store(_ packet: consuming RTPPacket, at extended: UInt64, arrival: ArrivalTime) {
        slots[Int(extended & mask)] = Slot(packet: packet, arrival: arrival)
        held += 1
    }

    private mutating func noteJump(_ packet: RTPPacket, arrival: ArrivalTime) -> InsertResult {
        guard jumpCandidate == packet.sequenceNumber, pendingRestart == nil else {
            jumpCandidate = packet.sequenceNumber &+ 1
            jumps += 1
            return .jump
        }
        jumpCandidate = nil
        pendingRestart = (packet, arrival)
        return .restart
    }

    private mutating func noteSourceChange(_ packet: RTPPacket, arrival: ArrivalTime) -> InsertResult {
        // A straggler of the source just left, or a third source before the change is released: too late.
        guard packet.ssrc != previousSSRC, pendingRestart == nil else {
            late += 1
            return .late
        }
        previousSSRC = ssrc
        ssrc = packet.ssrc
        relabeledFrom = nil
        jumpCandidate = nil
        sourceChanges += 1
        pendingRestart = (packet, arrival)
        return .restart
    }

    /// Once everything before a restart is out: announce the discontinuity, then start again at the new packet.
    private mutating func takePendingRestart() -> Output? {
        guard let (packet, arrival) = pendingRestart, let start = head else { return nil }
        pendingRestart = nil
        restarts += 1
        // Keep extended numbers increasing: the new sequence starts in the next cycle.
        let first = ((start >> 16) + 1) << 16 | UInt64(packet.sequenceNumber)
        head = first
        highest = first
        highestTimestamp = packet.timestamp
        releasedAny = false
        store(packet, at: first, arrival: arrival)
        return .discontinuity
    }
}
