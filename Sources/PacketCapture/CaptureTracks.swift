import RTP

/// Sorts the datagrams of a capture (or of anything that yields `UDPDatagram`s) into tracks: each RTP
/// stream is a track, numbered in the order the streams first appear, and its packets come out as
/// ``ReceivedPacket``s for a ``MediaPipeline`` (or a reorder buffer per track).
///
/// A stream is an SSRC and its UDP addresses; with ``followsFlows``, its addresses alone (the flow of an RTSP
/// track, live or captured), so that a change of SSRC goes on in the same track, as a discontinuity the
/// track's reorder buffer sees. A new SSRC whose packets carry on the sequence numbers and timestamps of a
/// stream of the same addresses is that stream under a new name
/// (``RTP/ReorderBuffer/carriesOn(sequence:timestamp:after:)``).
public struct CaptureTracks: Sendable {
    /// What one datagram was.
    public enum Item: Sendable {
        /// An RTP packet of the track it names; `isNewTrack` for the first of a stream not seen before.
        case packet(ReceivedPacket, isNewTrack: Bool)
        /// The sender reports of an RTCP compound packet.
        case senderReports([RTCPSenderReport])
    }

    public let filter: StreamFilter
    public let followsFlows: Bool
    private var positions = StreamPositions()
    /// With ``followsFlows``: each track's first SSRC, which names it (its key in `positions` has none).
    private var firstSSRCs: [UInt32] = []
    /// Each track's latest packet: what a relabelled source must carry on.
    private var latest: [(sequence: UInt16, timestamp: UInt32)] = []
    /// Datagrams that matched the filter but were not valid RTP (including snaplen-truncated ones).
    public private(set) var rejected = 0

    public init(filter: StreamFilter = StreamFilter(), followsFlows: Bool = false) {
        self.filter = filter
        self.followsFlows = followsFlows
    }

    /// What `datagram` is; nil when the filter leaves it out, it is RTCP without a sender report, or it is
    /// not valid RTP (counted in ``rejected``). RTCP passes whatever the filter's port: it comes on the
    /// next port up.
    public mutating func sort(_ datagram: consuming UDPDatagram) -> Item? {
        sort(ReceivedItem(datagram))
    }

    /// What a received item is, as ``sort(_:)-(UDPDatagram)`` says of a datagram.
    package mutating func sort(_ item: consuming ReceivedItem) -> Item? {
        let (source, destination, time) = (item.source, item.destination, item.arrival)
        let isDiscontinuity = item.isDiscontinuity
        let packet: RTPPacket
        switch (consume item).payload {
        case .rtp(let received):
            guard filter.admits(source: source, destination: destination) else { return nil }
            packet = received
        case .senderReports(let reports):
            return reports.isEmpty ? nil : .senderReports(reports)
        case .bytes(let bytes, let isTruncated):
            if RTPPacket.looksLikeRTCP(bytes) {
                let reports = ReceivedItem.senderReports(in: bytes)
                return reports.isEmpty ? nil : .senderReports(reports)
            }
            guard filter.admits(source: source, destination: destination) else { return nil }
            // The bytes move into the packet: no retain of the read buffer for it.
            guard !isTruncated, let read = try? RTPPacket(consume bytes) else {
                rejected += 1
                return nil
            }
            packet = read
        }
        guard filter.admits(ssrc: packet.ssrc, payloadType: packet.payloadType) else { return nil }
        let key = StreamKey(ssrc: followsFlows ? 0 : packet.ssrc, source: source, destination: destination)
        // One comparison for the usual packet (of the stream before it); a key not seen is looked at for a
        // renamed stream before it is taken for a new one.
        var known = positions.find(key)
        if known == nil, !followsFlows, let relabelled = relabelledTrack(of: packet, key: key) {
            positions.alias(key, to: relabelled)
            known = relabelled
        }
        let (position, isNew) = known.map { ($0, false) } ?? positions.position(of: key)
        if isNew && followsFlows { firstSSRCs.append(packet.ssrc) }
        if isNew {
            latest.append((packet.sequenceNumber, packet.timestamp))
        } else {
            latest[position] = (packet.sequenceNumber, packet.timestamp)
        }
        return .packet(
            ReceivedPacket(track: position, packet: packet, arrival: time, isDiscontinuity: isDiscontinuity),
            isNewTrack: isNew)
    }

    /// The track a packet of an SSRC not seen before belongs to when it carries on the sequence numbers
    /// and timestamps of a track of the same flow (a proxy or camera that renumbers its source every GOP):
    /// the same stream under a new name, not a new one.
    private func relabelledTrack(of packet: RTPPacket, key: StreamKey) -> Int? {
        positions.keys.indices.last { track in
            let known = positions.keys[track]
            return known.source == key.source && known.destination == key.destination
                && ReorderBuffer.carriesOn(
                    sequence: packet.sequenceNumber, timestamp: packet.timestamp, after: latest[track])
        }
    }

    /// How many tracks were found so far.
    public var trackCount: Int { positions.keys.count }

    /// The stream of `track`; with ``followsFlows``, named by its first SSRC.
    public func stream(track: Int) -> StreamKey {
        let key = positions.keys[track]
        guard followsFlows else { return key }
        return StreamKey(ssrc: firstSSRCs[track], source: key.source, destination: key.destination)
    }

    /// The track of `stream` (as ``stream(track:)`` names it), if it has been seen.
    public func track(of stream: StreamKey) -> Int? {
        let lookup = followsFlows ? StreamKey(ssrc: 0, source: stream.source, destination: stream.destination) : stream
        return positions.existingPosition(of: lookup)
    }
}
