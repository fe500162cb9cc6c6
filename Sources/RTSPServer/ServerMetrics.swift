import CoreMetrics
@_spi(SansIO) import RTSP
import Synchronization

/// A server's figures through swift-metrics (``RTSPServer/Configuration/metricsFactory``), under the `path` a
/// viewer plays: viewers playing now by transport (`rtsp_server_viewers`), bytes of RTP sent
/// (`rtsp_server_bytes_sent_total`) and units skipped for viewers that did not read
/// (`rtsp_server_units_skipped_total`); and, for the whole server, wrong answers to the authentication challenge
/// (`rtsp_server_authentication_failures_total`: the path of a request not let in is the peer's choice, and a
/// dimension a peer chooses has no bound). A path gets its metrics when it is first played, so only mounted paths
/// have them.
final class ServerMetrics: Sendable {
    /// One path's metrics.
    final class Path: Sendable {
        let bytesSent: Counter
        let unitsSkipped: Counter
        private let viewers: [Transport: Meter]

        /// How a viewer is served, as the `transport` dimension says it.
        enum Transport: String, CaseIterable, Sendable {
            case tcp, udp, multicast
        }

        init(_ path: String, factory: any MetricsFactory) {
            bytesSent = Counter(label: "rtsp_server_bytes_sent_total", dimensions: [("path", path)], factory: factory)
            unitsSkipped = Counter(
                label: "rtsp_server_units_skipped_total", dimensions: [("path", path)], factory: factory)
            var viewers: [Transport: Meter] = [:]
            for transport in Transport.allCases {
                let meter = Meter(
                    label: "rtsp_server_viewers", dimensions: [("path", path), ("transport", transport.rawValue)],
                    factory: factory)
                meter.set(0)
                viewers[transport] = meter
            }
            self.viewers = viewers
        }

        /// A viewer started (`joined`) or stopped playing.
        func viewer(_ transport: Transport, joined: Bool) {
            if joined { viewers[transport]?.increment() } else { viewers[transport]?.decrement() }
        }
    }

    private let factory: any MetricsFactory
    private let paths = Mutex<[String: Path]>([:])
    let authenticationFailures: Counter

    init(factory: any MetricsFactory) {
        self.factory = factory
        authenticationFailures = Counter(label: "rtsp_server_authentication_failures_total", factory: factory)
    }

    /// The metrics of `path`, made when first asked for.
    func path(_ path: String) -> Path {
        paths.withLock { paths in
            if let existing = paths[path] { return existing }
            let made = Path(path, factory: factory)
            paths[path] = made
            return made
        }
    }
}

extension ServerMetrics.Path.Transport {
    /// How a PLAY's tracks go: to a multicast group when they do (all or none of a session's do), else UDP when any
    /// track does, else interleaved in the connection.
    init(_ tracks: [RTSPServerStateMachine.Track]) {
        let tracks = tracks.filter { !$0.isBackchannel }  // what it sends, not what it is sent
        if tracks.contains(where: { $0.transport.isMulticast }) {
            self = .multicast
            return
        }
        let udp = tracks.contains { if case .udp = $0.transport { true } else { false } }
        self = udp ? .udp : .tcp
    }
}
