@_spi(SansIO) import RTSP

/// Where one viewer's figures and events go: its path's metrics (as a viewer by its transport, bytes sent,
/// units skipped) and the server's event streams.
struct ViewerReport: Sendable {
    let metrics: ServerMetrics.Path
    let events: ServerEvents
    let path: String
    let address: String
    let session: String
    let transport: ServerMetrics.Path.Transport

    func joined() {
        metrics.viewer(transport, joined: true)
        events.tell(.viewerJoined(path: path, address: address, session: session))
    }

    func left(skippedUnits: Int) {
        metrics.viewer(transport, joined: false)
        events.tell(.viewerLeft(path: path, address: address, session: session, skippedUnits: skippedUnits))
    }

    func sent(bytes: Int) { metrics.bytesSent.increment(by: bytes) }

    /// What a multicast group of the path is sent, for all its viewers at once: bytes and skips counted once, its
    /// falling behind told under the group's address and the session `multicast`.
    func forGroup(_ group: MulticastGroup) -> ViewerReport {
        ViewerReport(
            metrics: metrics, events: events, path: path, address: group.description, session: "multicast",
            transport: .multicast)
    }

    /// A unit skipped; `fellBehind` when the unit before it was sent.
    func skipped(fellBehind: Bool) {
        metrics.unitsSkipped.increment()
        if fellBehind { events.tell(.viewerSkipping(path: path, address: address, session: session)) }
    }
}
