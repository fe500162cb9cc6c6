import MediaPipeline
import PacketCapture
import RTP

/// Runs the RTP packets of a capture through one ``ReorderBuffer`` per stream, with the capture's
/// timestamps as the clock: what `rtpdump packets` lists (the network path's order, driven by a file).
package struct OrderedPackets: Sendable {
    /// One thing released for a stream.
    package struct Event: Sendable {
        package let stream: StreamKey
        package let output: ReorderBuffer.Output
    }

    package let configuration: ReorderBuffer.Configuration
    private var tracks: CaptureTracks
    /// Each stream's reorder buffer, at its track's index.
    private var buffers: [ReorderBuffer] = []

    package init(filter: StreamFilter = StreamFilter(), configuration: ReorderBuffer.Configuration = .init()) {
        self.configuration = configuration
        self.tracks = CaptureTracks(filter: filter)
    }

    /// Datagrams that matched the filter but were not valid RTP (including snaplen-truncated ones).
    package var rejected: Int { tracks.rejected }

    /// Offers a datagram of a capture; `emit` receives what it releases, in order.
    package mutating func add(_ datagram: consuming UDPDatagram, emit: (Event) -> Void) {
        add(ReceivedItem(datagram), emit: emit)
    }

    /// Offers a received item; `emit` receives what it releases, in order.
    package mutating func add(_ item: consuming ReceivedItem, emit: (Event) -> Void) {
        guard case .packet(let received, let isNew) = tracks.sort(item) else { return }
        if isNew { buffers.append(ReorderBuffer(configuration: configuration)) }
        let track = received.track
        buffers[track].insert(received.packet, arrival: received.arrival)
        let key = tracks.stream(track: track)
        while let output = buffers[track].next(now: received.arrival) { emit(Event(stream: key, output: output)) }
    }

    /// Releases everything still held, stream by stream.
    package mutating func finish(emit: (Event) -> Void) {
        for track in buffers.indices {
            let key = tracks.stream(track: track)
            while let output = buffers[track].flush() { emit(Event(stream: key, output: output)) }
        }
    }

    /// The buffer of each stream, for its counters.
    package func buffer(for key: StreamKey) -> ReorderBuffer? {
        tracks.track(of: key).map { buffers[$0] }
    }
}
