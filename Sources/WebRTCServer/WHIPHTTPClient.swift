import NIOCore
import NIOHTTP1
import NIOPosix

/// The two requests a WHIP publisher makes (RFC 9725 section 4.2): POST the offer, DELETE the session; over HTTP/1.1
/// on SwiftNIO, one connection each, within a deadline, the answer's body read up to a bound.
struct WHIPHTTPClient {
    /// An `http://host[:port]/path` URL, split.
    struct Endpoint: Sendable, Hashable {
        var host: String
        var port: Int
        var path: String

        /// Reads `url`; nil when it is not an `http://` URL with a host.
        init?(_ url: String) {
            guard url.lowercased().hasPrefix("http://") else { return nil }
            let rest = url.dropFirst("http://".count)
            let authority = rest.prefix { $0 != "/" }
            path = rest.dropFirst(authority.count).isEmpty ? "/" : String(rest.dropFirst(authority.count))
            var hostPart = Substring(authority)
            port = 80
            if hostPart.hasPrefix("["), let close = hostPart.firstIndex(of: "]") {
                let after = hostPart[hostPart.index(after: close)...]
                if after.hasPrefix(":") {
                    guard let number = Int(after.dropFirst()), (1...65535).contains(number) else { return nil }
                    port = number
                }
                hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
            } else if let colon = hostPart.lastIndex(of: ":") {
                guard let number = Int(hostPart[hostPart.index(after: colon)...]), (1...65535).contains(number) else {
                    return nil
                }
                port = number
                hostPart = hostPart[..<colon]
            }
            guard !hostPart.isEmpty else { return nil }
            host = String(hostPart)
        }

        /// `location` (a `Location` header: absolute, or a path) against this endpoint.
        func resolving(_ location: String) -> Endpoint? {
            if location.lowercased().hasPrefix("http://") { return Endpoint(location) }
            guard location.hasPrefix("/") else { return nil }
            var resolved = self
            resolved.path = location
            return resolved
        }
    }

    struct Response: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: String
    }

    /// The most answer read: an SDP answer is a few KiB.
    static let maxBodyBytes = 256 << 10

    let group: any EventLoopGroup
    var timeout: Duration = .seconds(10)

    func request(
        _ method: HTTPMethod, _ endpoint: Endpoint, headers extra: [(String, String)] = [], body: String? = nil
    ) async throws -> Response {
        let collector = ResponseCollector(promise: group.next().makePromise())
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(.nanoseconds(timeout.nanosecondCount))
            .channelInitializer { channel in
                channel.pipeline.addHTTPClientHandlers().flatMap { channel.pipeline.addHandler(collector) }
            }
            .connect(host: endpoint.host, port: endpoint.port).get()
        // A Character: contains(String) is Foundation's, and would link ICU into every program (CommandLineTests).
        let host = endpoint.host.contains(":" as Character) ? "[\(endpoint.host)]" : endpoint.host
        var headers = HTTPHeaders([("Host", endpoint.port == 80 ? host : "\(host):\(endpoint.port)")])
        for (name, value) in extra { headers.add(name: name, value: value) }
        headers.add(name: "Content-Length", value: "\(body?.utf8.count ?? 0)")
        headers.add(name: "Connection", value: "close")
        let head = HTTPRequestHead(version: .http1_1, method: method, uri: endpoint.path, headers: headers)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(string: body))), promise: nil) }
        try await channel.writeAndFlush(HTTPClientRequestPart.end(nil))
        let deadline = channel.eventLoop.scheduleTask(in: .nanoseconds(timeout.nanosecondCount)) {
            collector.fail(WebRTCPublishError("the endpoint did not answer \(method) within \(timeout)"))
            channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        defer { channel.close(promise: nil) }
        return try await collector.response.get()
    }
}

/// Collects one HTTP response, its body bounded.
private final class ResponseCollector: ChannelInboundHandler, @unchecked Sendable {  // on its channel's loop
    typealias InboundIn = HTTPClientResponsePart

    private var promise: EventLoopPromise<WHIPHTTPClient.Response>?
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()
    /// The response, or why there is none (the promise may complete from the channel's loop or the deadline's).
    let response: EventLoopFuture<WHIPHTTPClient.Response>

    init(promise: EventLoopPromise<WHIPHTTPClient.Response>) {
        self.promise = promise
        response = promise.futureResult
    }

    func fail(_ error: any Error) {
        promise?.fail(error)
        promise = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body(var part):
            guard body.readableBytes + part.readableBytes <= WHIPHTTPClient.maxBodyBytes else {
                fail(WebRTCPublishError("the endpoint's answer is over \(WHIPHTTPClient.maxBodyBytes) bytes"))
                return context.close(promise: nil)
            }
            body.writeBuffer(&part)
        case .end:
            guard let head else { return fail(WebRTCPublishError("the endpoint answered without a status line")) }
            promise?.succeed(
                .init(status: Int(head.status.code), headers: head.headers, body: String(buffer: body)))
            promise = nil
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(WebRTCPublishError("the endpoint closed the connection before it answered"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(WebRTCPublishError("the connection to the endpoint failed: \(error)"))
        context.close(promise: nil)
    }
}

/// Why publishing failed, in a sentence.
public struct WebRTCPublishError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { "WHIP: \(reason)" }
}
