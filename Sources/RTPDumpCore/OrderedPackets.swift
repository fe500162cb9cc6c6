import MediaPipeline
import PacketCapture
import RTP

/// Runs the RTP packets of a capture through one ``ReorderBuffer`` per stream, with the capture's
/// timestamps as the clock: what `rtpdump packets` lists (the network path's order, driven by a file).
public struct OrderedPackets: Sendable {
    /// One thing released for a stream.
    public struct Event: Sendable {
        public let stream: StreamKey
        public let output: ReorderBuffer.Output
    }

    public let configuration: ReorderBuffer.Configuration
    private var tracks: CaptureTracks
    /// Each stream's reorder buffer, at its track's index.
    private var buffers: [ReorderBuffer] = []

    public init(filter: StreamFilter = StreamFilter(), configuration: ReorderBuffer.Configuration = .init()) {
        self.configuration = configuration
        self.tracks = CaptureTracks(filter: filter)
    }

    /// Datagrams that matched the filter but were not valid RTP (including snaplen-truncated ones).
    public var rejected: Int { tracks.rejected }

    /// Offers a datagram; `emit` receives what it releases, in order.
    public mutating func add(_ datagram: consuming UDPDatagram, emit: (Event) -> Void) {
        guard case .packet(let received, let isNew) = tracks.sort(datagram) else { return }
        if isNew { buffers.append(ReorderBuffer(configuration: configuration)) }
        let track = received.track
        buffers[track].insert(received.packet, arrival: received.arrival)
        let key = tracks.stream(track: track)
        while let output = buffers[track].next(now: received.arrival) { emit(Event(stream: key, output: output)) }
    }

    /// Releases everything still held, stream by stream.
    public mutating func finish(emit: (Event) -> Void) {
        for track in buffers.indices {
            let key = tracks.stream(track: track)
            while let output = buffers[track].flush() { emit(Event(stream: key, output: output)) }
        }
    }

    /// The buffer of each stream, for its counters.
    public func buffer(for key: StreamKey) -> ReorderBuffer? {
        tracks.track(of: key).map { buffers[$0] }
    }
}
