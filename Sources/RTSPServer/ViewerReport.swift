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

    /// A unit skipped; `fellBehind` when the unit before it was sent.
    func skipped(fellBehind: Bool) {
        metrics.unitsSkipped.increment()
        if fellBehind { events.tell(.viewerSkipping(path: path, address: address, session: session)) }
    }
}
