/// One WebRTC viewer's figures, from its own reports and feedback (RFC 3550 receiver reports, RFC 4585 NACK and
/// PLI) and what the server did about them.
public struct WebRTCViewerStatistics: Sendable, Hashable {
    /// The viewer's id: the last part of its WHEP resource's URL.
    public var id: String
    /// The path it plays.
    public var path: String
    /// Whether ICE and DTLS are done and media goes to it.
    public var isPlaying = false
    /// Where media goes (the address ICE selected).
    public var address: String?
    /// RTCP packets read from it.
    public var rtcpPackets = 0
    /// Its latest report's fraction lost (0 to 1) and cumulative loss, of the last stream it reported on.
    public var fractionLost = 0.0
    public var cumulativeLost = 0
    /// The round trip its latest report with a sender report's echo tells.
    public var roundTripTime: Duration?
    /// Packets it asked for again (NACK), those sent again, and those no longer kept.
    public var negativeAcknowledgements = 0
    public var retransmittedPackets = 0
    public var retransmissionsUnavailable = 0
    /// Keyframes it asked for (PLI, FIR), passed to the source (``RTSPServer/MediaSource/onKeyframeRequest(_:)``).
    public var keyframeRequests = 0
    /// RTP packets of its voice taken (two-way audio), whether or not it held the floor.
    public var talkPackets = 0

    public init(id: String, path: String) {
        self.id = id
        self.path = path
    }
}
