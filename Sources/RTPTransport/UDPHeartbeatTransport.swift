import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RTP

/// RTP over UDP from a sender that starts when it hears a "hello" datagram and keeps sending while it
/// hears a heartbeat: the hello goes out first, then the heartbeat on a timer (every `interval`, whether
/// or not packets arrive: a sender that stalls must still hear that the receiver is there).
public final class UDPHeartbeatTransport: RTPTransport, Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var hello: [UInt8]
        public var heartbeat: [UInt8]
        public var interval: Duration
        /// The local port; 0 lets the system pick.
        public var localPort: Int
        /// The kernel's receive buffer for the socket (`SO_RCVBUF`): what holds a key picture's burst while
        /// the event loop is busy; past it the kernel drops packets (loss). Linux caps it at
        /// `net.core.rmem_max`. 0 leaves the system's default. Default 512 KiB, as an RTSP session asks.
        public var receiveBufferBytes = 512 << 10

        public init(
            host: String, port: Int, hello: [UInt8], heartbeat: [UInt8], interval: Duration = .seconds(1),
            localPort: Int = 0
        ) {
            self.host = host
            self.port = port
            self.hello = hello
            self.heartbeat = heartbeat
            self.interval = interval
            self.localPort = localPort
        }
    }

    public let configuration: Configuration
    private let state = NIOLockedValueBox<(channel: (any Channel)?, timer: RepeatedTask?, heartbeats: Int)>(
        (nil, nil, 0))

    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// Heartbeats sent so far.
    public var heartbeatsSent: Int { state.withLockedValue { $0.heartbeats } }

    public func start() async throws -> AsyncThrowingStream<[UInt8], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        let remote: SocketAddress
        do {
            remote = try SocketAddress.makeAddressResolvingHost(configuration.host, port: configuration.port)
        } catch {
            throw RTPTransportError(.connectionFailed, "cannot resolve \(configuration.host): \(error)")
        }
        let channel: any Channel
        do {
            var bootstrap = DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            if configuration.receiveBufferBytes > 0 {
                bootstrap = bootstrap.channelOption(
                    .socketOption(.so_rcvbuf), value: SocketOptionValue(clamping: configuration.receiveBufferBytes))
            }
            channel =
                try await bootstrap
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(DatagramYielder(continuation: continuation))
                    }
                }
                .bind(host: remote.protocol == .inet6 ? "::" : "0.0.0.0", port: configuration.localPort).get()
        } catch {
            throw RTPTransportError(.connectionFailed, "cannot bind UDP port \(configuration.localPort): \(error)")
        }
        try? await ReceiveBuffer.size(channel, to: configuration.receiveBufferBytes).get()
        let hello = configuration.hello
        let heartbeat = configuration.heartbeat
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: remote, data: ByteBuffer(bytes: hello)), promise: nil)
        let interval = TimeAmount.nanoseconds(configuration.interval.nanosecondCount)
        let state = self.state
        let timer = channel.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            channel.writeAndFlush(
                AddressedEnvelope(remoteAddress: remote, data: ByteBuffer(bytes: heartbeat)), promise: nil)
            state.withLockedValue { $0.heartbeats += 1 }
        }
        state.withLockedValue {
            $0.channel = channel
            $0.timer = timer
        }
        continuation.onTermination = { _ in
            timer.cancel()
            channel.close(promise: nil)
        }
        return stream
    }

    /// The socket's receive buffer as the kernel granted it (for the tests); nil before ``start()``.
    func grantedReceiveBuffer() async throws -> Int? {
        guard let channel = state.withLockedValue({ $0.channel }) else { return nil }
        return Int(try await channel.getOption(.socketOption(.so_rcvbuf)).get())
    }

    public func close() async {
        let (channel, timer) = state.withLockedValue { ($0.channel, $0.timer) }
        timer?.cancel()
        try? await channel?.close()
    }
}

/// Hands each datagram's bytes to the transport's sequence.
final class DatagramYielder: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation

    init(continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(Array(unwrapInboundIn(data).data.readableBytesView))
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP port unreachable (the sender not there yet) is reported as an error: not fatal for UDP.
    }
}
