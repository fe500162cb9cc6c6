import RTP

/// A UDP datagram found in a capture.
public struct UDPDatagram: Sendable {
    /// The capture record it came from (the last fragment's, for a reassembled datagram).
    public let recordIndex: Int
    /// When it was captured.
    public let time: ArrivalTime
    public let source: SocketAddress
    public let destination: SocketAddress
    /// The UDP payload. When ``isTruncated`` is true this is only the part the capture kept.
    public let payload: ArraySlice<UInt8>
    /// Whether the capture's snaplen cut the datagram short: the headers are intact, the payload is not.
    public let isTruncated: Bool
    /// Whether its source announced a break before it (a live session that reconnected or resumed: what
    /// follows does not continue what came before). Captures never set it.
    public var isDiscontinuity = false

    /// A datagram; also how other framings (RTP interleaved in an RTSP connection) enter the same path.
    public init(
        recordIndex: Int, time: ArrivalTime, source: SocketAddress, destination: SocketAddress,
        payload: ArraySlice<UInt8>, isTruncated: Bool
    ) {
        self.recordIndex = recordIndex
        self.time = time
        self.source = source
        self.destination = destination
        self.payload = payload
        self.isTruncated = isTruncated
    }
}
