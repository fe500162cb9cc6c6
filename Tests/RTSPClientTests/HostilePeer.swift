import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP client that behaves as a hostile one does: it sends what it is told, when it is told, and reads only
/// what the test asks for (with a small receive buffer, so that a server's answers fill it soon). What it is
/// sent is kept for the test to read.
final class HostilePeer: Sendable {
    let channel: any Channel
    private let received: NIOLockedValueBox<[UInt8]>

    /// Connects to `port` on 127.0.0.1, from `source` (another loopback address: another host to the server).
    init(port: Int, from source: String = "127.0.0.1", reads: Bool = false) async throws {
        let received = NIOLockedValueBox<[UInt8]>([])
        self.received = received
        channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(to: try SocketAddress(ipAddress: source, port: 0))
            .channelOption(.socketOption(.so_rcvbuf), value: 16 << 10)
            .channelOption(.autoRead, value: reads)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(received: received))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
    }

    /// Everything received so far.
    var bytes: [UInt8] { received.withLockedValue { $0 } }

    /// Everything received so far, as text.
    var text: String { String(decoding: received.withLockedValue { $0 }, as: UTF8.self) }

    /// Reads once (a peer made with `reads: false`).
    func read() { channel.read() }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    /// Sends `chunk` again and again for `duration`, as fast as the connection takes it, and returns the bytes
    /// the socket took (a chunk is counted once its write completes).
    func flood(_ chunk: String, for duration: Duration) async -> Int {
        let buffer = ByteBuffer(string: chunk)
        let sent = NIOLockedValueBox(0)
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end && channel.isActive {
            if channel.isWritable {
                channel.writeAndFlush(buffer).whenSuccess { sent.withLockedValue { $0 += buffer.readableBytes } }
                await Task.yield()
            } else {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        return sent.withLockedValue { $0 }
    }

    /// Whether the server closed the connection within `limit`; how long it took.
    func closed(within limit: Duration) async -> Duration? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            if !channel.isActive { return ContinuousClock.now - start }
            channel.read()
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    func close() async { try? await channel.close() }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received: NIOLockedValueBox<[UInt8]>
        init(received: NIOLockedValueBox<[UInt8]>) { self.received = received }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            received.withLockedValue { $0 += buffer.readableBytesView }
        }
    }
}
