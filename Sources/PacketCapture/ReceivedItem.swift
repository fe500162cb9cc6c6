@_spi(SansIO) import RTP

/// One thing received, whatever it came in: a capture's UDP datagram, the RTP interleaved in a captured RTSP
/// connection, or a live session's packet or sender report. Every command reads the same item: its payload (a
/// packet, sender reports, or a capture's bytes not read yet) and the addresses that, with an RTP packet's
/// SSRC, name its stream.
///
/// A capture's bytes are read where they are sorted (``CaptureTracks``), once, their buffer moving into the
/// packet; a live session's packets and reports come read.
package struct ReceivedItem: Sendable {
    /// What an item holds.
    package enum Payload: Sendable {
        /// A capture's datagram, not read yet (`isTruncated`: the capture's snaplen cut it short).
        case bytes(ArraySlice<UInt8>, isTruncated: Bool)
        /// An RTP packet, read.
        case rtp(RTPPacket)
        /// A track's sender reports.
        case senderReports([RTCPSenderReport])
    }

    /// What an item is, read.
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

        /// An RTP packet's fixed header, whether the packet reads or not, with the bytes received and whether a
        /// capture's snaplen cut them short; nil for RTCP and other bytes. What a reader that lists or counts
        /// packets needs of each.
        package var rtpHeader: (header: RTPFixedHeader, length: Int, isTruncated: Bool)? {
            switch self {
            case .rtp(let packet): (RTPFixedHeader(packet), packet.bytes.count, false)
            case .unreadableRTP(let header, let length, let isTruncated): (header, length, isTruncated)
            case .rtcp, .notRTP: nil
            }
        }
    }

    package var payload: Payload
    /// Where it came from. For a live session: the server's address.
    package var source: SocketAddress
    /// Where it went. For a live session: the track's client port, or its interleaved channel over TCP.
    package var destination: SocketAddress
    package var arrival: ArrivalTime
    /// Whether its source announced a break before it (a live session that reconnected or resumed).
    package var isDiscontinuity: Bool

    @inlinable
    package init(
        _ payload: Payload, source: SocketAddress, destination: SocketAddress, arrival: ArrivalTime,
        isDiscontinuity: Bool = false
    ) {
        self.payload = payload
        self.source = source
        self.destination = destination
        self.arrival = arrival
        self.isDiscontinuity = isDiscontinuity
    }

    /// A capture's datagram, its bytes not read yet.
    @inlinable
    package init(_ datagram: consuming UDPDatagram) {
        let (source, destination, time) = (datagram.source, datagram.destination, datagram.time)
        let (isDiscontinuity, isTruncated) = (datagram.isDiscontinuity, datagram.isTruncated)
        self.init(
            .bytes((consume datagram).payload, isTruncated: isTruncated), source: source, destination: destination,
            arrival: time, isDiscontinuity: isDiscontinuity)
    }

    /// What it is, read (a capture's bytes are read here, for readers that list or count rather than sort).
    package var content: Content {
        switch payload {
        case .rtp(let packet): return .rtp(packet)
        case .senderReports(let reports): return .rtcp(senderReports: reports)
        case .bytes(let bytes, let isTruncated):
            if RTPPacket.looksLikeRTCP(bytes) { return .rtcp(senderReports: Self.senderReports(in: bytes)) }
            if !isTruncated, let packet = try? RTPPacket(bytes) { return .rtp(packet) }
            guard let header = try? RTPFixedHeader(bytes) else { return .notRTP }
            return .unreadableRTP(header, length: bytes.count, isTruncated: isTruncated)
        }
    }

    /// The sender reports of an RTCP compound packet (none when it has none or does not read).
    static func senderReports(in bytes: ArraySlice<UInt8>) -> [RTCPSenderReport] {
        ((try? RTCPPacket.parseCompound(bytes)) ?? []).compactMap { packet in
            if case .senderReport(let report) = packet { return report }
            return nil
        }
    }

    /// The payload type of what looks like RTP, without reading the rest; nil for RTCP and bytes too short.
    package var payloadType: UInt8? {
        switch payload {
        case .rtp(let packet): return packet.payloadType
        case .senderReports: return nil
        case .bytes(let bytes, _):
            guard bytes.count >= 2, !RTPPacket.looksLikeRTCP(bytes) else { return nil }
            return bytes[bytes.startIndex + 1] & 0x7F
        }
    }

    /// Bytes it holds (what a queue of items counts against its bound).
    package var byteCount: Int {
        switch payload {
        case .rtp(let packet): packet.bytes.count
        case .bytes(let bytes, _): bytes.count
        case .senderReports: 0
        }
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
