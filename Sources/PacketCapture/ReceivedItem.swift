import RTP

/// One thing received, read once where it is made, whatever it came in: a capture's UDP datagram, the RTP
/// interleaved in a captured RTSP connection, or a live session's packet or sender report. Every command
/// reads the same item: an RTP packet with the addresses that, with its SSRC, name its stream, or an RTCP
/// compound's sender reports.
package struct ReceivedItem: Sendable {
    package enum Content: Sendable {
        /// An RTP packet.
        case rtp(RTPPacket)
        /// An RTP fixed header whose packet does not read (cut short by a capture's snaplen, or its padding
        /// or extension overruns it): counted in its stream, never depacketized. `length`: the bytes received.
        case unreadableRTP(RTPFixedHeader, length: Int, isTruncated: Bool)
        /// An RTCP compound packet's sender reports (none, when it has none or does not read).
        case rtcp(senderReports: [RTCPSenderReport])
        /// Bytes of neither protocol.
        case notRTP
    }

    package var content: Content
    /// Where it came from. For a live session: the server's address.
    package var source: SocketAddress
    /// Where it went. For a live session: the track's client port, or its interleaved channel over TCP.
    package var destination: SocketAddress
    package var arrival: ArrivalTime
    /// Whether its source announced a break before it (a live session that reconnected or resumed).
    package var isDiscontinuity: Bool

    @inlinable
    package init(
        _ content: Content, source: SocketAddress, destination: SocketAddress, arrival: ArrivalTime,
        isDiscontinuity: Bool = false
    ) {
        self.content = content
        self.source = source
        self.destination = destination
        self.arrival = arrival
        self.isDiscontinuity = isDiscontinuity
    }

    /// A datagram, read: its payload moves into the packet (no retain of the read buffer for it).
    @inlinable
    package init(_ datagram: consuming UDPDatagram) {
        let (source, destination, time) = (datagram.source, datagram.destination, datagram.time)
        let (isDiscontinuity, isTruncated) = (datagram.isDiscontinuity, datagram.isTruncated)
        self.init(
            Self.content(of: (consume datagram).payload, isTruncated: isTruncated), source: source,
            destination: destination, arrival: time, isDiscontinuity: isDiscontinuity)
    }

    @inlinable
    static func content(of payload: consuming ArraySlice<UInt8>, isTruncated: Bool) -> Content {
        if RTPPacket.looksLikeRTCP(payload) { return .rtcp(senderReports: senderReports(in: payload)) }
        if !isTruncated, let layout = try? RTPPacket.Layout(payload) {
            // The payload moves into the packet: no retain of the read buffer for it.
            return .rtp(RTPPacket(consume payload, layout))
        }
        let length = payload.count
        guard let header = try? RTPFixedHeader(consume payload) else { return .notRTP }
        return .unreadableRTP(header, length: length, isTruncated: isTruncated)
    }

    @usableFromInline
    static func senderReports(in payload: ArraySlice<UInt8>) -> [RTCPSenderReport] {
        ((try? RTCPPacket.parseCompound(payload)) ?? []).compactMap { packet in
            if case .senderReport(let report) = packet { return report }
            return nil
        }
    }

    /// The SSRC and addresses of an RTP packet (readable or not); nil for RTCP and other bytes.
    package var stream: StreamKey? {
        switch content {
        case .rtp(let packet): StreamKey(ssrc: packet.ssrc, source: source, destination: destination)
        case .unreadableRTP(let header, _, _): StreamKey(ssrc: header.ssrc, source: source, destination: destination)
        case .rtcp, .notRTP: nil
        }
    }

    /// Bytes it holds (what a queue of items counts against its bound).
    package var byteCount: Int {
        if case .rtp(let packet) = content { return packet.bytes.count }
        return 0
    }
}

/// Where received items are read from: a capture (any ``DatagramSource``, read through ``ReceivedItem/init(_:)``)
/// or a live session, which yields its packets and sender reports as they are.
package protocol ReceivedItemSource {
    /// The next item, or nil at the end.
    mutating func nextItem() throws -> ReceivedItem?
    /// Calls `body` with each item in order until the source ends or `body` throws. A source that receives on a
    /// thread of its own (a live session) runs `body` there while the caller waits, so that no item has to
    /// cross threads; use ``nextItem()`` for work too slow for a receiving thread.
    mutating func forEachItem(_ body: (consuming ReceivedItem) throws -> Void) throws
    var warnings: CaptureWarnings { get }
}

extension ReceivedItemSource where Self: DatagramSource {
    package mutating func nextItem() throws -> ReceivedItem? {
        try nextDatagram().map { ReceivedItem($0) }
    }

    package mutating func forEachItem(_ body: (consuming ReceivedItem) throws -> Void) throws {
        try forEachDatagram { datagram in try body(ReceivedItem(consume datagram)) }
    }
}

extension CaptureFile: ReceivedItemSource {}
