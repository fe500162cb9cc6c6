import MediaPipeline
import NIOCore
import RTP

/// RTP packets in one buffer, each behind an RTSP interleaved frame header (`$`, a channel, its length: RFC 2326
/// section 10.12): what an ``OutgoingTrack`` makes once for every viewer. An RTSP connection takes it as it is
/// (``InterleavedWriter``); UDP takes its packets as slices of it, uncopied (``DatagramWriter``).
@_spi(SansIO) public struct FramedPackets: PacketBatch, Sendable {
    /// The frames, back to back.
    public private(set) var buffer: ByteBuffer
    /// The channel the frames name.
    public let channel: UInt8
    /// How many packets it holds.
    public private(set) var count = 0

    /// The bytes of its RTP packets, without their frame headers.
    public var packetBytes: Int { buffer.readableBytes - 4 * count }

    /// An empty batch framed for `channel`, with room for `capacity` bytes before it grows.
    public init(channel: UInt8, capacity: Int = 2048, allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        self.channel = channel
        buffer = allocator.buffer(capacity: capacity)
    }

    package mutating func append(header: RTPHeaderWords, payload: ArraySlice<UInt8>) {
        guard RTPHeaderWords.size + payload.count <= Int(UInt16.max) else { return }
        writeFrameHeader(length: RTPHeaderWords.size + payload.count)
        header.withBytes { _ = buffer.writeBytes($0) }
        buffer.writeBytes(payload)
        count += 1
    }

    package mutating func append(packet: ArraySlice<UInt8>) {
        guard packet.count <= Int(UInt16.max) else { return }
        writeFrameHeader(length: packet.count)
        buffer.writeBytes(packet)
        count += 1
    }

    private mutating func writeFrameHeader(length: Int) {
        buffer.writeInteger(UInt8(0x24))
        buffer.writeInteger(channel)
        buffer.writeInteger(UInt16(truncatingIfNeeded: length))
    }

    /// The packets, each a slice of the buffer (no copy).
    public var packets: [ByteBuffer] {
        var slices: [ByteBuffer] = []
        slices.reserveCapacity(count)
        forEachPacket { slices.append($0) }
        return slices
    }

    /// Calls `body` with each packet, a slice of the buffer (no copy).
    public func forEachPacket(_ body: (ByteBuffer) -> Void) {
        var offset = buffer.readerIndex
        while offset + 4 <= buffer.writerIndex, let length = buffer.getInteger(at: offset + 2, as: UInt16.self),
            let packet = buffer.getSlice(at: offset + 4, length: Int(length))
        {
            body(packet)
            offset += 4 + Int(length)
        }
    }

    /// The same frames on another channel (a client that chose its own): one copy, the channel bytes rewritten.
    public func onChannel(_ other: UInt8) -> ByteBuffer {
        guard other != channel else { return buffer }
        var copy = buffer
        var offset = copy.readerIndex
        while offset + 4 <= copy.writerIndex, let length = copy.getInteger(at: offset + 2, as: UInt16.self) {
            copy.setInteger(other, at: offset + 1)
            offset += 4 + Int(length)
        }
        return copy
    }
}
