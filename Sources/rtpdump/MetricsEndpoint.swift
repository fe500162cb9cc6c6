import CoreMetrics
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus

/// `--metrics-port`: the process's swift-metrics in Prometheus's text format at `http://HOST:PORT/metrics`
/// (swift-prometheus), for a long-running command (serve, record, a played URL). Any other path is 404; a
/// request is answered and its connection kept, as a scraper expects.
enum MetricsEndpoint {
    /// Bootstraps swift-metrics with a Prometheus registry and serves it on `port` (0: a free one) at `host`.
    /// Returns the port listened on.
    static func start(host: String, port: Int) throws -> Int {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(registry: registry))
                }
            }
            .bind(host: host, port: port).wait()
        return channel.localAddress?.port ?? port
    }

    /// Answers each request head: the registry's text for `GET /metrics`, else 404 or 405.
    final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let registry: PrometheusCollectorRegistry

        init(registry: PrometheusCollectorRegistry) { self.registry = registry }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(let request) = unwrapInboundIn(data) else { return }
            let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
            let (status, body): (HTTPResponseStatus, [UInt8]) =
                request.method != .GET
                ? (.methodNotAllowed, Array("GET only\n".utf8))
                : path == "/metrics" ? (.ok, registry.emitToBuffer()) : (.notFound, Array("see /metrics\n".utf8))
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: status == .ok ? "text/plain; version=0.0.4" : "text/plain")
            headers.add(name: "Content-Length", value: String(body.count))
            let head = HTTPResponseHead(version: request.version, status: status, headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
