import RTP

/// What an ``RTSPSession`` has received and sent so far.
public struct RTSPSessionStatistics: Sendable {
    /// Per track, RFC 3550 receiver statistics of the packets as they arrived. A session that reconnects
    /// adds up its connections' counts (what went missing between them is not loss: see
    /// ``RTSPSessionStatistics/timeWithoutMedia``); jitter is the current connection's.
    public struct Track: Sendable {
        /// The sender's SSRC, once a packet has arrived.
        public var ssrc: UInt32?
        public var packets: UInt64 = 0
        /// The bytes of those packets, RTP headers included.
        public var bytes: UInt64 = 0
        /// Expected minus received (RFC 3550 A.3); can be negative with duplicates. The sequence numbers
        /// a server skips while paused count here too.
        public var lost: Int64 = 0
        public var duplicates: UInt64 = 0
        /// Packets that arrived after a higher sequence number (out of order, not duplicates).
        public var reordered: UInt64 = 0
        public var jitterMilliseconds: Double = 0
        /// RTCP sender reports received.
        public var senderReports = 0
        /// The sender's wall clock (its latest sender report's NTP time) less this machine's when that report
        /// arrived: how far apart the two clocks are, network delay included. Nil before a report.
        public var senderClockOffset: Duration?
        /// RTP packets of another source than the one the server announced for the track (an older
        /// session's), dropped while the announced one streams.
        public var staleSourcePackets = 0
        /// RTCP sender reports of another source than the track's (its RTP's, or the announced one's before
        /// any RTP), ignored: they would date the track's units with another clock.
        public var otherSourceReports = 0
        /// Times the track's source took a new SSRC and carried on its sequence numbers and timestamps (a proxy
        /// or camera that renumbers every GOP), followed as the same stream.
        public var sourceRelabels = 0
    }

    /// The transport in use now: `.tcp` or `.udp`.
    public var transport: RTSPSessionOptions.Transport
    /// True when `.auto` (or a 461 answer) moved the session from UDP to TCP.
    public var fellBackToTCP: Bool
    public var tracks: [Track]
    /// Packets that were not RTP (bad version, too short), dropped.
    public var invalidPackets: Int
    /// Packets dropped because the consumer fell ``RTSPSessionOptions/packetBufferCapacity`` packets or
    /// ``RTSPSessionOptions/packetBufferByteCapacity`` bytes behind.
    public var droppedByConsumer: Int
    /// Packets that arrived before the PLAY answer and did not fit the hold buffer.
    public var earlyPacketsDropped: Int
    /// Interleaved frames on channels no track was set up on.
    public var unknownChannelFrames: Int
    /// RTP the server sent on the backchannel (which only the client sends on), dropped unread.
    public var backchannelPacketsDropped = 0
    public var receiverReportsSent: Int
    /// SRTP / SRTCP packets that failed authentication (or were replays) and were dropped.
    public var srtpAuthFailures: Int
    /// Keepalive requests sent and answered count as requests; this counts all requests sent.
    public var requestsSent: Int
    /// Times the session played again after it broke (``RTSPSessionOptions/reconnection``).
    public var reconnects = 0
    /// How long the session has been without media because of breaks: from the last packet before each
    /// break to the first after it, and until now for a break not yet mended.
    public var timeWithoutMedia = Duration.zero
    /// Why the session last broke (the first failure of that break, not what later attempts met), if it
    /// ever did.
    public var lastBreak: RTSPClientError?
}
