import NIOCore
import RTSP
import Synchronization

/// One playing session of one client: where each of its tracks goes, and what it skips while it cannot keep
/// up. Its methods are called by its ``MediaSource`` under the source's lock, one at a time, from whatever
/// thread pushes; the writes they make are queued on the connection's event loop.
final class Subscriber: Sendable {
    /// The RTSP connection (TCP interleaved media goes there; closing it ends the session).
    let connection: any Channel
    let transports: [Int: RTSPServerStateMachine.Transport]
    /// The server's UDP sockets and the client's address, for tracks sent over UDP.
    let udp: (rtp: any Channel, rtcp: any Channel, peer: SocketAddress)?
    /// Tracks that wait for a keyframe before they send again (video at the start, and after a skip), and
    /// counts of what was skipped.
    private let gate: Mutex<(waiting: Set<Int>, skippedUnits: Int)>

    init(
        connection: any Channel, transports: [Int: RTSPServerStateMachine.Transport],
        udp: (rtp: any Channel, rtcp: any Channel, peer: SocketAddress)?, videoTracks: Set<Int>
    ) {
        self.connection = connection
        self.transports = transports
        self.udp = udp
        gate = Mutex((videoTracks.intersection(transports.keys), 0))
    }

    /// Units skipped because the client was not reading, or was waiting for a keyframe.
    var skippedUnits: Int { gate.withLock { $0.skippedUnits } }

    /// Sends one unit's packets (`$`-framed on channel 2 × track, as the source writes them) on the track's
    /// transport; skips them when the connection's (or the UDP socket's) buffer is full, and video until a
    /// keyframe after that.
    func deliver(track: Int, packets: ByteBuffer, isVideo: Bool, isKeyframe: Bool) {
        guard let transport = transports[track] else { return }
        // Room on the client's connection (TCP), or on the server's UDP socket that every UDP client shares.
        let hasRoom: Bool
        if case .interleaved = transport { hasRoom = connection.isWritable } else { hasRoom = udp?.rtp.isWritable ?? true }
        let sends = gate.withLock { gate -> Bool in
            if !hasRoom {
                if isVideo { gate.waiting.insert(track) }
                gate.skippedUnits += 1
                return false
            }
            if gate.waiting.contains(track) {
                guard isKeyframe else {
                    gate.skippedUnits += 1
                    return false
                }
                gate.waiting.remove(track)
            }
            return true
        }
        guard sends else { return }
        switch transport {
        case .interleaved(let rtp, _):
            if rtp == UInt8(truncatingIfNeeded: track * 2) {
                connection.writeAndFlush(packets, promise: nil)
            } else {
                connection.writeAndFlush(Self.reframed(packets, channel: rtp), promise: nil)
            }
        case .udp(let port, _):
            guard let udp, let address = try? udp.peer.withPort(Int(port)) else { return }
            var offset = packets.readerIndex
            while offset + 4 <= packets.writerIndex, let length = packets.getInteger(at: offset + 2, as: UInt16.self),
                let packet = packets.getSlice(at: offset + 4, length: Int(length))
            {
                udp.rtp.write(AddressedEnvelope(remoteAddress: address, data: packet), promise: nil)
                offset += 4 + Int(length)
            }
            udp.rtp.flush()
        }
    }

    /// Sends an RTCP compound on the track's RTCP channel or port.
    func deliverReport(track: Int, bytes: [UInt8], allocator: ByteBufferAllocator) {
        guard let transport = transports[track] else { return }
        switch transport {
        case .interleaved(_, let rtcp):
            // A client that does not read gets no reports either: nothing is queued past its budget.
            guard connection.isWritable, let frame = RTSPFramer.interleavedFrame(channel: rtcp, payload: bytes) else { return }
            connection.writeAndFlush(allocator.buffer(bytes: frame), promise: nil)
        case .udp(_, let port):
            guard let udp, let address = try? udp.peer.withPort(Int(port)) else { return }
            udp.rtcp.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: allocator.buffer(bytes: bytes)), promise: nil)
        }
    }

    /// The frames of `packets` on another channel (a client that chose its own interleaved channels).
    private static func reframed(_ packets: ByteBuffer, channel: UInt8) -> ByteBuffer {
        var copy = packets
        var offset = copy.readerIndex
        while offset + 4 <= copy.writerIndex, let length = copy.getInteger(at: offset + 2, as: UInt16.self) {
            copy.setInteger(channel, at: offset + 1)
            offset += 4 + Int(length)
        }
        return copy
    }
}

extension SocketAddress {
    /// This address with another port.
    func withPort(_ port: Int) throws -> SocketAddress {
        guard let ip = ipAddress else { throw ChannelError.unknownLocalAddress }
        return try SocketAddress(ipAddress: ip, port: port)
    }
}
