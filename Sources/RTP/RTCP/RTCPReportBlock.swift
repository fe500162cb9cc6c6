/// A reception report block (RFC 3550 section 6.4.1), as carried by sender and receiver reports.
@_spi(SansIO) public struct RTCPReportBlock: Hashable, Sendable {
    /// The source this block reports on.
    public var ssrc: UInt32
    /// Fraction of packets lost since the previous report, in 1/256ths.
    public var fractionLost: UInt8
    /// Cumulative packets lost (a signed 24-bit value: duplicates can make it negative).
    public var cumulativeLost: Int32
    /// The extended highest sequence number received.
    public var extendedHighestSequence: UInt32
    /// Interarrival jitter in timestamp units.
    public var jitter: UInt32
    /// The middle 32 bits of the NTP timestamp of the last sender report received (LSR).
    public var lastSenderReport: UInt32
    /// Delay since that sender report, in 1/65536 s (DLSR).
    public var delaySinceLastSenderReport: UInt32

    public init(
        ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, extendedHighestSequence: UInt32, jitter: UInt32,
        lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    static let length = 24

    init(_ b: ArraySlice<UInt8>) {
        let lostField = RTPPacket.readUInt32(b, at: b.startIndex + 4) & 0x00FF_FFFF
        self.init(
            ssrc: RTPPacket.readUInt32(b, at: b.startIndex), fractionLost: b[b.startIndex + 4],
            cumulativeLost: Int32(bitPattern: lostField << 8) >> 8,
            extendedHighestSequence: RTPPacket.readUInt32(b, at: b.startIndex + 8),
            jitter: RTPPacket.readUInt32(b, at: b.startIndex + 12),
            lastSenderReport: RTPPacket.readUInt32(b, at: b.startIndex + 16),
            delaySinceLastSenderReport: RTPPacket.readUInt32(b, at: b.startIndex + 20))
    }

    func append(to out: inout [UInt8]) {
        out.appendBigEndian(ssrc)
        out.appendBigEndian(UInt32(fractionLost) << 24 | UInt32(bitPattern: cumulativeLost) & 0x00FF_FFFF)
        out.appendBigEndian(extendedHighestSequence)
        out.appendBigEndian(jitter)
        out.appendBigEndian(lastSenderReport)
        out.appendBigEndian(delaySinceLastSenderReport)
    }
}

/// A sender report (RFC 3550 section 6.4.1): the sender's NTP wall clock against its RTP clock.
public struct RTCPSenderReport: Hashable, Sendable {
    public var ssrc: UInt32
    /// The NTP timestamp: seconds since 1900 in the high 32 bits, fraction in the low 32.
    public var ntpTimestamp: UInt64
    /// The RTP timestamp that corresponds to ``ntpTimestamp``.
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    /// What the sender says of the sources it receives.
    @_spi(SansIO) public var reportBlocks: [RTCPReportBlock]

    /// A report without report blocks.
    public init(ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32) {
        self.init(
            ssrc: ssrc, ntpTimestamp: ntpTimestamp, rtpTimestamp: rtpTimestamp, packetCount: packetCount,
            octetCount: octetCount, reportBlocks: [])
    }

    @_spi(SansIO) public init(
        ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
        reportBlocks: [RTCPReportBlock]
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reportBlocks = reportBlocks
    }
}

/// A receiver report (RFC 3550 section 6.4.2).
@_spi(SansIO) public struct RTCPReceiverReport: Hashable, Sendable {
    /// The reporter's own SSRC.
    public var ssrc: UInt32
    public var reportBlocks: [RTCPReportBlock]

    public init(ssrc: UInt32, reportBlocks: [RTCPReportBlock]) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
    }
}
