import CSRTP
import CSRTPLoader
import RTP

/// Protects what one sender sends: SRTP and SRTCP of any of its SSRCs with one master key (libsrtp's
/// `ssrc_any_outbound`), the inverse of ``SRTPReceiver``.
///
/// Not thread-safe: use one sender from one thread (or under one lock) at a time.
public final class SRTPSender {
    public let suite: SRTPSuite
    private let session: srtp_t
    private let library: csrtp_api
    /// The bytes libsrtp may add to a packet (its tag, and an MKI).
    private static let trailer = Int(SRTP_MAX_TRAILER_LEN)

    public init(key: SRTPKey) throws(SRTPError) {
        library = try SRTPLibrary.functions()
        suite = key.suite
        session = try SRTPLibrary.session(key: key, inbound: false, library: library)
    }

    deinit { _ = library.srtp_dealloc(session) }

    /// The SRTP packet of an RTP packet.
    public func protect(_ packet: some Collection<UInt8>) throws(SRTPError) -> [UInt8] {
        try run(packet, isRTCP: false)
    }

    /// The SRTCP packet of an RTCP compound packet.
    public func protectRTCP(_ packet: some Collection<UInt8>) throws(SRTPError) -> [UInt8] {
        try run(packet, isRTCP: true)
    }

    private func run(_ packet: some Collection<UInt8>, isRTCP: Bool) throws(SRTPError) -> [UInt8] {
        guard packet.count >= (isRTCP ? 8 : 12), packet.count + Self.trailer <= 1 << 16 else {
            throw SRTPError(.malformed, "\(packet.count) bytes cannot be protected as \(isRTCP ? "RTCP" : "RTP")")
        }
        var bytes = Array(packet)
        let length = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: Self.trailer))
        // (A Result: the array's closure rethrows untyped.)
        let protected = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(SRTPError) in try protect(buffer, length: length, isRTCP: isRTCP) }
        }
        bytes.removeLast(bytes.count - (try protected.get()))
        return bytes
    }

    /// libsrtp's protection of the packet in the first `length` bytes of `buffer`, where it lies (the buffer has
    /// room for the trailer); its protected length.
    private func protect(_ buffer: UnsafeMutableRawBufferPointer, length: Int, isRTCP: Bool) throws(SRTPError) -> Int {
        var protectedLength = Int32(length)
        let status =
            isRTCP
            ? library.srtp_protect_rtcp(session, buffer.baseAddress, &protectedLength)
            : library.srtp_protect(session, buffer.baseAddress, &protectedLength)
        guard status == srtp_err_status_ok else {
            throw SRTPError(
                .library, "libsrtp refused to protect an \(isRTCP ? "RTCP" : "RTP") packet (error \(status.rawValue))")
        }
        return Int(protectedLength)
    }
}

extension SRTPSender: PacketProtection {
    public func protectedRTP(_ packet: [UInt8]) throws -> [UInt8] { try protect(packet) }
    public func protectedRTCP(_ packet: [UInt8]) throws -> [UInt8] { try protectRTCP(packet) }

    /// libsrtp protects where the packet lies: no copy.
    public func protectRTP(inPlace buffer: UnsafeMutableRawBufferPointer, length: Int) throws -> Int {
        guard length >= 12, length + Self.trailer <= buffer.count, length + Self.trailer <= 1 << 16 else {
            throw SRTPError(
                .malformed, "\(length) bytes with \(buffer.count - length) of room cannot be protected as RTP")
        }
        return try protect(buffer, length: length, isRTCP: false)
    }
}
