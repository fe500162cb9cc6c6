import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// RTP inside an HTTP response body (the seed player's deployments): `GET path`, then a 200 response
/// whose body (chunked or not) is packets, each after a 4-byte big-endian length. A length of zero or
/// above the limit, an HTTP error or a body cut in the middle of a packet ends the sequence with an
/// ``RTPTransportError`` that says which.
public final class HTTPStreamTransport: RTPTransport, Sendable {
    public let host: String
    public let port: Int
    public let path: String
    public let maxPacketBytes: Int
    private let channel = NIOLockedValueBox<(any Channel)?>(nil)

    public init(host: String, port: Int, path: String, maxPacketBytes: Int = 65_535) {
        self.host = host
        self.port = port
        self.path = path
        self.maxPacketBytes = maxPacketBytes
    }

    public func start() async throws -> AsyncThrowingStream<[UInt8], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        let request = HTTPRequestHead(
            version: .http1_1, method: .GET, uri: path, headers: ["Host": "\(host):\(port)", "Accept": "*/*"])
        let limit = maxPacketBytes
        let connected: any Channel
        do {
            connected = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(
                            HTTPPacketHandler(request: request, continuation: continuation, maxPacketBytes: limit))
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            throw RTPTransportError(.connectionFailed, "could not connect to \(host):\(port): \(error)")
        }
        channel.withLockedValue { $0 = connected }
        continuation.onTermination = { _ in connected.close(promise: nil) }
        return stream
    }

    public func close() async {
        try? await channel.withLockedValue { $0 }?.close()
    }
}

/// Sends the request, checks the status, and frames the body into packets.
final class HTTPPacketHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let request: HTTPRequestHead
    let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    var framer: LengthPrefixedFramer
    var failed = false

    init(
        request: HTTPRequestHead, continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation,
        maxPacketBytes: Int
    ) {
        self.request = request
        self.continuation = continuation
        self.framer = LengthPrefixedFramer(maxPacketBytes: maxPacketBytes)
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(request)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard head.status == .ok else {
                return fail(
                    context,
                    RTPTransportError(
                        .protocolViolation, "the server answered \(head.status.code) \(head.status.reasonPhrase)"))
            }
        case .body(let buffer):
            framer.append(buffer.readableBytesView)
            do {
                while let packet = try framer.next() { continuation.yield(packet) }
            } catch {
                fail(context, error)
            }
        case .end:
            if framer.pendingBytes > 0 {
                fail(
                    context,
                    RTPTransportError(.truncated, "the stream ended \(framer.pendingBytes) bytes into a packet"))
            } else {
                continuation.finish()
                context.close(promise: nil)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(context, RTPTransportError(.protocolViolation, "the HTTP stream broke: \(error)"))
    }

    private func fail(_ context: ChannelHandlerContext, _ error: RTPTransportError) {
        failed = true
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }
}
