import NIOCore

/// Hands the RTSP connection's bytes and its end to the driver. `generation` tells a connection that was
/// replaced (redirect, fallback to TCP) from the current one. The POST of an HTTP tunnel carries only the
/// client's side (`readsServer` false): what a server sends on it is not RTSP, only read for a refusal;
/// its end is the connection's.
final class ControlChannelHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let driver: SessionDriver
    private let generation: Int
    private let readsServer: Bool

    init(driver: SessionDriver, generation: Int, readsServer: Bool = true) {
        self.driver = driver
        self.generation = generation
        self.readsServer = readsServer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard readsServer else { return driver.tunnelPostBytes(unwrapInboundIn(data), generation: generation) }
        driver.controlBytes(unwrapInboundIn(data), generation: generation)
    }

    /// The packets of a read go to the consumer together.
    func channelReadComplete(context: ChannelHandlerContext) {
        driver.handOver()
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        driver.controlClosed(generation: generation, error: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        driver.controlClosed(generation: generation, error: error)
        context.close(promise: nil)
    }
}

/// Hands the datagrams of one UDP socket (the RTP or the RTCP socket of a track) to the driver.
final class MediaDatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let driver: SessionDriver
    private let track: Int
    private let isRTCP: Bool

    init(driver: SessionDriver, track: Int, isRTCP: Bool) {
        self.driver = driver
        self.track = track
        self.isRTCP = isRTCP
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        driver.datagram(envelope.data, track: track, isRTCP: isRTCP)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        driver.handOver()
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A UDP socket reports ICMP port unreachable and the like as errors; they are not fatal.
    }
}
