import NIOConcurrencyHelpers
import NIOCore
import RTP

/// Sends a track's packets to one WebRTC viewer: each packet copied (the viewer has keys of its own), given the
/// viewer's payload type and SSRC (those its answer named), protected (SRTP) and sent as one datagram on the
/// socket every viewer shares (RTP and RTCP muxed, RFC 5761). RTCP (sender reports, BYE) goes the same way.
public struct ProtectedDatagramWriter: Sendable {
    public let socket: any Channel
    public let address: SocketAddress
    public let payloadType: UInt8
    public let ssrc: UInt32
    private let protection: Protection

    /// The viewer's SRTP context and the buffer its packets are protected in, used under a lock (a source pushes
    /// from any thread, its reports from a timer).
    final class Protection: @unchecked Sendable {
        let lock = NIOLock()
        let value: any PacketProtection
        /// Room for the largest packet a track sends and what protection adds: each packet is copied here,
        /// given the viewer's payload type and SSRC, protected in place and written out.
        var scratch = [UInt8](repeating: 0, count: Protection.scratchSize)
        static let scratchSize = 4096

        init(_ value: any PacketProtection) { self.value = value }
    }

    /// What it sent, for the viewer's NACKs and round trip (nil: nothing kept).
    public let history: SentPacketHistory?

    public init(
        socket: any Channel, address: SocketAddress, payloadType: UInt8, ssrc: UInt32, protection: any PacketProtection,
        history: SentPacketHistory? = nil
    ) {
        self.socket = socket
        self.address = address
        self.payloadType = payloadType & 0x7F
        self.ssrc = ssrc
        self.protection = Protection(protection)
        self.history = history
    }

    public var hasRoom: Bool { socket.isWritable }

    public func write(_ packets: FramedPackets) {
        guard packets.count > 0 else { return }
        var sent = false
        protection.lock.withLock {
            let room = Protection.scratchSize - type(of: protection.value).maxTrailerLength
            packets.forEachPacket { slice in
                let length = slice.readableBytes
                guard length >= 12, length <= room else { return }
                let written: ByteBuffer? = protection.scratch.withUnsafeMutableBytes { buffer in
                    slice.withUnsafeReadableBytes { buffer.copyMemory(from: $0) }
                    buffer[1] = buffer[1] & 0x80 | payloadType
                    Self.setSSRC(buffer, at: 8, ssrc)
                    guard let protectedLength = try? protection.value.protectRTP(inPlace: buffer, length: length)
                    else { return nil }
                    let protected = UnsafeRawBufferPointer(rebasing: buffer[0..<protectedLength])
                    history?.record(
                        ssrc: ssrc, sequenceNumber: UInt16(buffer[2]) << 8 | UInt16(buffer[3]), protected: protected)
                    if history?.dropsLastRecorded() == true { return nil }
                    var datagram = socket.allocator.buffer(capacity: protectedLength)
                    datagram.writeBytes(protected)
                    return datagram
                }
                guard let written else { return }
                socket.write(AddressedEnvelope(remoteAddress: address, data: written), promise: nil)
                sent = true
            }
        }
        if sent { socket.flush() }
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
