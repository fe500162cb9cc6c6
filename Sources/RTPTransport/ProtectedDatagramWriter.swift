import NIOConcurrencyHelpers
import NIOCore
import RTP

/// Sends a track's packets to one WebRTC viewer: each packet copied (the viewer has keys of its own), given the
/// viewer's payload type and SSRC (those its answer named), protected (SRTP) and sent as one datagram on the
/// socket every viewer shares (RTP and RTCP muxed, RFC 5761). RTCP (sender reports, BYE) goes the same way.
@_spi(SansIO) public struct ProtectedDatagramWriter: Sendable {
    public let socket: any Channel
    public let address: SocketAddress
    public let payloadType: UInt8
    public let ssrc: UInt32
    private let protection: Protection

    /// The viewer's SRTP context and the buffer its packets are protected in, used under a lock (a source pushes
    /// from any thread, its reports from a timer). One for all of a viewer's tracks: libsrtp's context is one per
    /// viewer and takes one caller at a time, and a viewer's tracks may be pushed from different threads (the
    /// camera's video, the Opus re-encoder's audio).
    package final class Protection: @unchecked Sendable {
        let lock = NIOLock()
        let value: any PacketProtection
        /// Room for the largest packet a track sends and what protection adds: each packet is copied here,
        /// given the viewer's payload type and SSRC, protected in place and written out.
        var scratch = [UInt8](repeating: 0, count: Protection.scratchSize)
        static let scratchSize = 4096
        /// The last unit's protected packets: its storage serves the next unit once the socket has sent them
        /// (else the next unit gets storage of its own). Not kept past ``keptUnitCapacity``: a keyframe's
        /// storage, kept, would cost each viewer the largest picture's size for the whole session.
        var unit: ByteBuffer?
        static let keptUnitCapacity = 32 << 10

        package init(_ value: any PacketProtection) { self.value = value }
    }

    /// What it sent, for the viewer's NACKs and round trip (nil: nothing kept).
    public let history: SentPacketHistory?

    /// A writer with a protection of its own (a viewer with one track, or tracks all pushed from one thread).
    public init(
        socket: any Channel, address: SocketAddress, payloadType: UInt8, ssrc: UInt32, protection: any PacketProtection,
        history: SentPacketHistory? = nil
    ) {
        self.init(
            socket: socket, address: address, payloadType: payloadType, ssrc: ssrc, sharing: Protection(protection),
            history: history)
    }

    /// A writer of one of a viewer's tracks, sharing the viewer's protection with its others.
    package init(
        socket: any Channel, address: SocketAddress, payloadType: UInt8, ssrc: UInt32, sharing protection: Protection,
        history: SentPacketHistory? = nil
    ) {
        self.socket = socket
        self.address = address
        self.payloadType = payloadType & 0x7F
        self.ssrc = ssrc
        self.protection = protection
        self.history = history
    }

    public var hasRoom: Bool { socket.isWritable }

    public func write(_ packets: FramedPackets) {
        guard packets.count > 0 else { return }
        let trailer = type(of: protection.value).maxTrailerLength
        // The unit's protected packets go into one buffer, each sent as a slice of it, and the buffer's storage
        // serves the next unit once they are sent: nothing allocated for the bytes of most units. Room for a
        // 16-byte tag each (the 4 bytes of each packet's framing and 12 more; SRTP's tags are 10 or 16 bytes).
        var lengths: [Int] = []
        lengths.reserveCapacity(packets.count)
        let unit = protection.lock.withLock { () -> ByteBuffer in
            let needed = packets.buffer.readableBytes + packets.count * 12
            var unit = protection.unit.take() ?? socket.allocator.buffer(capacity: needed)
            unit.clear(minimumCapacity: needed)
            let room = Protection.scratchSize - trailer
            packets.forEachPacket { slice in
                let length = slice.readableBytes
                guard length >= 12, length <= room else { return }
                protection.scratch.withUnsafeMutableBytes { buffer in
                    slice.withUnsafeReadableBytes { buffer.copyMemory(from: $0) }
                    buffer[1] = buffer[1] & 0x80 | payloadType
                    Self.setSSRC(buffer, at: 8, ssrc)
                    guard let protectedLength = try? protection.value.protectRTP(inPlace: buffer, length: length)
                    else { return }
                    let protected = UnsafeRawBufferPointer(rebasing: buffer[0..<protectedLength])
                    history?.record(
                        ssrc: ssrc, sequenceNumber: UInt16(buffer[2]) << 8 | UInt16(buffer[3]), protected: protected)
                    if history?.dropsLastRecorded() == true { return }
                    unit.writeBytes(protected)
                    lengths.append(protectedLength)
                }
            }
            if unit.capacity <= Protection.keptUnitCapacity { protection.unit = unit }
            return unit
        }
        guard !lengths.isEmpty else { return }
        var offset = unit.readerIndex
        for length in lengths {
            guard let datagram = unit.getSlice(at: offset, length: length) else { break }
            socket.write(AddressedEnvelope(remoteAddress: address, data: datagram), promise: nil)
            offset += length
        }
        socket.flush()
    }

    /// An RTCP compound of the source's: its first packet's sender SSRC made the viewer's, then protected.
    public func writeRTCP(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return }
        var rewritten = bytes
        rewritten.withUnsafeMutableBytes { Self.setSSRC($0, at: 4, ssrc) }
        if bytes[1] == 200, bytes.count >= 16 {  // a sender report: when it went, for the round trip
            let ntp =
                UInt64(RTPPacket.readUInt32(bytes[...], at: 8)) << 32 | UInt64(RTPPacket.readUInt32(bytes[...], at: 12))
            history?.recordReport(ntpTimestamp: ntp, at: .now())
        }
        guard let protected = protection.lock.withLock({ try? protection.value.protectedRTCP(rewritten) }) else {
            return
        }
        socket.writeAndFlush(
            AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: protected)), promise: nil)
    }

    private static func setSSRC(_ bytes: UnsafeMutableRawBufferPointer, at offset: Int, _ ssrc: UInt32) {
        bytes[offset] = UInt8(ssrc >> 24)
        bytes[offset + 1] = UInt8(ssrc >> 16 & 0xFF)
        bytes[offset + 2] = UInt8(ssrc >> 8 & 0xFF)
        bytes[offset + 3] = UInt8(ssrc & 0xFF)
    }
}
