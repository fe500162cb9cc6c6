import NIOCore
import RTP

/// Where one track's packets and RTCP go, framed as that transport frames them: the edge of the sending road.
/// A server's viewers, a client's backchannel and a relay all write through these, from the same
/// ``FramedPackets``.
@_spi(SansIO) public enum TrackWriter: Sendable {
    /// In an RTSP connection, as interleaved frames.
    case interleaved(InterleavedWriter)
    /// As UDP datagrams.
    case datagrams(DatagramWriter)
    /// As SRTP datagrams to a WebRTC viewer.
    case protected(ProtectedDatagramWriter)

    /// Whether there is room to queue more: the connection's buffer, or the UDP socket's (a client that does not
    /// read fills them; what it would get is then skipped).
    public var hasRoom: Bool {
        switch self {
        case .interleaved(let writer): writer.hasRoom
        case .datagrams(let writer): writer.hasRoom
        case .protected(let writer): writer.hasRoom
        }
    }

    /// Writes the packets.
    public func write(_ packets: FramedPackets) {
        switch self {
        case .interleaved(let writer): writer.write(packets)
        case .datagrams(let writer): writer.write(packets)
        case .protected(let writer): writer.write(packets)
        }
    }

    /// Writes an RTCP compound packet (skipped while there is no room: reports come again).
    public func writeRTCP(_ bytes: [UInt8]) {
        switch self {
        case .interleaved(let writer): writer.writeRTCP(bytes)
        case .datagrams(let writer): writer.writeRTCP(bytes)
        case .protected(let writer): writer.writeRTCP(bytes)
        }
    }
}

/// Writes a track's packets into an RTSP connection as interleaved frames (RFC 2326 section 10.12) on its RTP and
/// RTCP channels: the batch as it is when it is framed for the RTP channel, else a copy with the channel rewritten.
@_spi(SansIO) public struct InterleavedWriter: Sendable {
    public let rtpChannel: UInt8
    public let rtcpChannel: UInt8
    private let send: @Sendable (ByteBuffer) -> Void
    private let room: @Sendable () -> Bool

    /// A writer into `connection` (a server's client: its frames written and flushed as they come).
    public init(connection: any Channel, rtpChannel: UInt8, rtcpChannel: UInt8) {
        self.init(
            rtpChannel: rtpChannel, rtcpChannel: rtcpChannel, hasRoom: { connection.isWritable },
            send: { connection.writeAndFlush($0, promise: nil) })
    }

    /// A writer into a connection of the caller's (a client's, which may tunnel what it sends through HTTP):
    /// `send` takes each frame buffer, `hasRoom` says whether the connection takes more.
    public init(
        rtpChannel: UInt8, rtcpChannel: UInt8, hasRoom: @escaping @Sendable () -> Bool,
        send: @escaping @Sendable (ByteBuffer) -> Void
    ) {
        self.rtpChannel = rtpChannel
        self.rtcpChannel = rtcpChannel
        self.send = send
        room = hasRoom
    }

    public var hasRoom: Bool { room() }

    public func write(_ packets: FramedPackets) {
        guard packets.count > 0 else { return }
        send(packets.onChannel(rtpChannel))
    }

    public func writeRTCP(_ bytes: [UInt8]) {
        guard hasRoom else { return }
        var frame = FramedPackets(channel: rtcpChannel, capacity: 4 + bytes.count)
        frame.append(packet: bytes[...])
        if frame.count > 0 { send(frame.buffer) }
    }
}

/// Sends a track's packets as UDP datagrams, each a slice of the batch (uncopied), from an RTP and an RTCP socket
/// to the peer's RTP and RTCP addresses.
@_spi(SansIO) public struct DatagramWriter: Sendable {
    public let rtpSocket: any Channel
    public let rtcpSocket: any Channel
    public let rtpAddress: SocketAddress
    public let rtcpAddress: SocketAddress

    public init(rtpSocket: any Channel, rtcpSocket: any Channel, rtpAddress: SocketAddress, rtcpAddress: SocketAddress)
    {
        self.rtpSocket = rtpSocket
        self.rtcpSocket = rtcpSocket
        self.rtpAddress = rtpAddress
        self.rtcpAddress = rtcpAddress
    }

    /// Whether the RTP socket's queue has room (a server's UDP socket is every UDP client's).
    public var hasRoom: Bool { rtpSocket.isWritable }

    public func write(_ packets: FramedPackets) {
        guard packets.count > 0 else { return }
        let (socket, address) = (rtpSocket, rtpAddress)
        packets.forEachPacket { socket.write(AddressedEnvelope(remoteAddress: address, data: $0), promise: nil) }
        socket.flush()
    }

    public func writeRTCP(_ bytes: [UInt8]) {
        rtcpSocket.writeAndFlush(
            AddressedEnvelope(remoteAddress: rtcpAddress, data: ByteBuffer(bytes: bytes)), promise: nil)
    }
}
