import PacketCapture
import RTP

/// Runs the RTP packets of a capture through one ``ReorderBuffer`` per stream, with the capture's
/// timestamps as the clock: what the network path does, driven by a file.
public struct OrderedPackets: Sendable {
    /// One thing released for a stream.
    public struct Event: Sendable {
        public let stream: StreamKey
        public let output: ReorderBuffer.Output
    }

    public let filter: StreamFilter
    public let configuration: ReorderBuffer.Configuration
    /// A stream is a flow (its addresses, ports or channel: an RTSP track) rather than an SSRC: a change of
    /// SSRC continues the stream after a discontinuity (the reorder buffer's source change). For RTSP
    /// sessions, live or captured, where the flows are the tracks; in a bare capture an SSRC is a stream.
    public let followsFlows: Bool
    private var positions = StreamPositions()
    /// With ``followsFlows``: each stream's first SSRC, which names it (its key in ``positions`` has none).
    private var firstSSRCs: [UInt32] = []
    /// Each stream's reorder buffer, at its position.
    private var buffers: [ReorderBuffer] = []
    /// Datagrams that matched the filter but were not valid RTP (including snaplen-truncated ones).
    public private(set) var rejected = 0

    public init(
        filter: StreamFilter = StreamFilter(), configuration: ReorderBuffer.Configuration = .init(),
        followsFlows: Bool = false
    ) {
        self.filter = filter
        self.configuration = configuration
        self.followsFlows = followsFlows
    }

    /// Offers a datagram; `emit` receives what it releases, in order.
    public mutating func add(_ datagram: consuming UDPDatagram, emit: (Event) -> Void) {
        let time = datagram.time
        guard let (position, key) = insert(datagram) else { return }
        while let output = next(at: position, now: time) { emit(Event(stream: key, output: output)) }
    }

    /// The first half of ``add(_:emit:)``: moves the datagram's RTP packet into its stream's reorder buffer and
    /// returns the stream and its position, to be drained with ``next(at:now:)``; nil when the datagram is
    /// not admitted. For callers that cannot take events through a closure while they change themselves.
    mutating func insert(_ datagram: consuming UDPDatagram) -> (position: Int, stream: StreamKey)? {
        guard filter.admits(datagram), !RTPPacket.looksLikeRTCP(datagram.payload) else { return nil }
        let (source, destination, time) = (datagram.source, datagram.destination, datagram.time)
        // The datagram's payload moves into the packet: no retain of the chunk for it.
        guard !datagram.isTruncated, let packet = try? RTPPacket((consume datagram).payload) else {
            rejected += 1
            return nil
        }
        guard filter.admits(ssrc: packet.ssrc, payloadType: packet.payloadType) else { return nil }
        let key = StreamKey(ssrc: followsFlows ? 0 : packet.ssrc, source: source, destination: destination)
        let (position, isNew) = positions.position(of: key)
        if isNew {
            buffers.append(ReorderBuffer(configuration: configuration))
            if followsFlows { firstSSRCs.append(packet.ssrc) }
        }
        buffers[position].insert(packet, arrival: time)
        return (position, followsFlows ? stream(at: position) : key)
    }

    /// What the stream at `position` (from ``insert(_:)``) releases next at `now`.
    mutating func next(at position: Int, now: ArrivalTime) -> ReorderBuffer.Output? {
        buffers[position].next(now: now)
    }

    /// Releases everything still held, stream by stream.
    public mutating func finish(emit: (Event) -> Void) {
        for position in 0..<streamCount {
            while let output = flush(at: position) { emit(Event(stream: stream(at: position), output: output)) }
        }
    }

    /// How many streams have a position (0 up to this).
    var streamCount: Int { buffers.count }

    /// What the stream at `position` still holds, next in order; ``finish(emit:)`` one stream and one
    /// output at a time, for the callers of ``insert(_:)``.
    mutating func flush(at position: Int) -> ReorderBuffer.Output? { buffers[position].flush() }

    /// The stream at `position` (from ``insert(_:)``); with ``followsFlows``, named by its first SSRC.
    func stream(at position: Int) -> StreamKey {
        let key = positions.keys[position]
        guard followsFlows else { return key }
        return StreamKey(ssrc: firstSSRCs[position], source: key.source, destination: key.destination)
    }

    /// The buffer of each stream, for its counters.
    public func buffer(for key: StreamKey) -> ReorderBuffer? {
        let lookup = followsFlows ? StreamKey(ssrc: 0, source: key.source, destination: key.destination) : key
        return positions.existingPosition(of: lookup).map { buffers[$0] }
    }
}
