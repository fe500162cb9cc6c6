import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// A UDP socket's kernel receive buffer: what holds a key picture's burst of packets while the event loop is busy;
/// past it the kernel drops them (loss).
package enum ReceiveBuffer {
    /// Asks `channel`'s socket for a buffer of `bytes` (`SO_RCVBUF`). Linux caps that at `net.core.rmem_max`;
    /// when it granted less and the process may go past the cap (root, or `CAP_NET_ADMIN`), the buffer is forced
    /// (`SO_RCVBUFFORCE`), as GStreamer's `udpsrc` does. What cannot be had is left as the kernel gave it.
    package static func size(_ channel: any Channel, to bytes: Int) -> EventLoopFuture<Void> {
        guard bytes > 0 else { return channel.eventLoop.makeSucceededVoidFuture() }
        let asked = SocketOptionValue(clamping: bytes)
        return channel.setOption(.socketOption(.so_rcvbuf), value: asked)
            .flatMap { channel.getOption(.socketOption(.so_rcvbuf)) }
            .flatMap { granted in
                // Linux reports twice what it keeps for the payload (its bookkeeping is the other half).
                #if os(Linux)
                    guard granted / 2 < asked else { return channel.eventLoop.makeSucceededVoidFuture() }
                    let force = ChannelOptions.Types.SocketOption(
                        level: .socket, name: NIOBSDSocket.Option(rawValue: SO_RCVBUFFORCE))
                    return channel.setOption(force, value: asked).recover { _ in }
                #else
                    return channel.eventLoop.makeSucceededVoidFuture()
                #endif
            }
            .recover { _ in }
    }
}
