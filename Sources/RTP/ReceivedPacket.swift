/// An RTP packet as it arrived, from any source (a live session, a capture file, an `RTPTransport`, bytes
/// a caller parsed), with the track it belongs to: what a `MediaPipeline` takes.
public struct ReceivedPacket: Sendable {
    /// The index of its track in the source (and in the pipeline that takes it).
    public var track: Int
    public var packet: RTPPacket
    /// When it arrived, on a monotonic clock: what the reorder buffer waits by.
    public var arrival: ArrivalTime
    /// The first packet of its track after a break the sender announced (an RTSP session resumed after
    /// PAUSE): what was held for the track ends here, and its numbering starts again; nothing is counted
    /// lost across it.
    public var isDiscontinuity: Bool

    public init(track: Int, packet: RTPPacket, arrival: ArrivalTime, isDiscontinuity: Bool = false) {
        self.track = track
        self.packet = packet
        self.arrival = arrival
        self.isDiscontinuity = isDiscontinuity
    }
}

/// An RTCP sender report as received, with the track it came for: what dates the units of the track's
/// source in a `MediaPipeline` (its `receiveSenderReport(_:track:)`), handed on beside the packets.
public struct ReceivedSenderReport: Sendable {
    /// The index of its track in the source.
    public var track: Int
    public var report: RTCPSenderReport

    public init(track: Int, report: RTCPSenderReport) {
        self.track = track
        self.report = report
    }
}
