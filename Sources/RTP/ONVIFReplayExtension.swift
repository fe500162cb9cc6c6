/// The ONVIF replay RTP header extension (ONVIF Streaming Specification section 6.3, profile 0xABAC): on the
/// first packet of each unit a recording server plays back, the time it was recorded and what a player
/// needs to know of it.
public struct ONVIFReplayExtension: Sendable, Hashable {
    /// The extension's "defined by profile" field.
    public static let profile: UInt16 = 0xABAC

    /// When the unit was recorded (NTP format, UTC).
    public var recordedTime: WallClockTime
    /// C: the unit is a clean point (a keyframe: decoding can start here).
    public var isCleanPoint: Bool
    /// E: the last unit of a contiguous section of the recording.
    public var isEnd: Bool
    /// D: the first unit after a gap in the recording (or after a seek).
    public var isDiscontinuity: Bool
    /// The low byte of the CSeq of the PLAY (or seek) this unit answers: packets of an earlier request can
    /// be told apart.
    public var cseq: UInt8

    public init(recordedTime: WallClockTime, isCleanPoint: Bool, isEnd: Bool, isDiscontinuity: Bool, cseq: UInt8) {
        self.recordedTime = recordedTime
        self.isCleanPoint = isCleanPoint
        self.isEnd = isEnd
        self.isDiscontinuity = isDiscontinuity
        self.cseq = cseq
    }

    /// The extension as a packet carries it: the NTP time, the C, E and D bits, the CSeq byte, two zero bytes.
    public var headerExtension: RTPHeaderExtension {
        var data: [UInt8] = []
        data.reserveCapacity(12)
        for shift in stride(from: 56, through: 0, by: -8) {
            data.append(UInt8(truncatingIfNeeded: recordedTime.ntp >> shift))
        }
        data.append((isCleanPoint ? 0x80 : 0) | (isEnd ? 0x40 : 0) | (isDiscontinuity ? 0x20 : 0))
        data.append(contentsOf: [cseq, 0, 0])
        return RTPHeaderExtension(profile: Self.profile, data: data[...])
    }

    /// The packet's replay extension, or nil when it has none (another profile, or fewer than 12 bytes).
    public init?(_ packet: RTPPacket) {
        guard let header = packet.headerExtension else { return nil }
        self.init(header)
    }

    /// Reads an extension of profile 0xABAC (nil for another profile, or fewer than 12 bytes of data).
    public init?(_ header: RTPHeaderExtension) {
        guard header.profile == Self.profile, header.data.count >= 12 else { return nil }
        let data = header.data
        let start = data.startIndex
        var ntp: UInt64 = 0
        for i in 0..<8 { ntp = ntp << 8 | UInt64(data[start + i]) }
        let flags = data[start + 8]
        self.init(
            recordedTime: WallClockTime(ntp: ntp), isCleanPoint: flags & 0x80 != 0, isEnd: flags & 0x40 != 0,
            isDiscontinuity: flags & 0x20 != 0, cseq: data[start + 9])
    }
}
