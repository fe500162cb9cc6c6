/// What protects a stream's packets on their way out: SRTP (`SRTPSender`, libsrtp2) when the stream is keyed.
/// Through this protocol the sending road protects without depending on libsrtp.
public protocol PacketProtection: AnyObject {
    /// `packet`, a whole RTP packet, protected (SRTP).
    func protectedRTP(_ packet: [UInt8]) throws -> [UInt8]
    /// `packet`, an RTCP compound packet, protected (SRTCP).
    func protectedRTCP(_ packet: [UInt8]) throws -> [UInt8]
    /// Protects the RTP packet in the first `length` bytes of `buffer` where it lies, and returns its protected
    /// length; `buffer` has ``maxTrailerLength`` bytes of room after the packet for what protection adds. For a
    /// sender that writes each packet to many receivers with keys of their own, without an array a packet.
    func protectRTP(inPlace buffer: UnsafeMutableRawBufferPointer, length: Int) throws -> Int
}

extension PacketProtection {
    /// The most bytes protection adds to a packet (libsrtp's `SRTP_MAX_TRAILER_LEN`: a tag and an MKI).
    public static var maxTrailerLength: Int { 144 }

    /// By ``protectedRTP(_:)``, through a copy: for a protection with no way of its own to work in place.
    public func protectRTP(inPlace buffer: UnsafeMutableRawBufferPointer, length: Int) throws -> Int {
        let protected = try protectedRTP(Array(buffer[0..<length]))
        guard protected.count <= buffer.count else {
            throw ProtectionRoomError(protectedLength: protected.count, room: buffer.count)
        }
        buffer.copyBytes(from: protected)
        return protected.count
    }
}

/// A protected packet that did not fit the room its buffer had.
package struct ProtectionRoomError: Error, CustomStringConvertible {
    let protectedLength: Int
    let room: Int
    package var description: String { "a protected packet of \(protectedLength) bytes does not fit in \(room)" }
}
