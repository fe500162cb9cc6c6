/// What protects a stream's packets on their way out: SRTP (`SRTPSender`, libsrtp2) when the stream is keyed.
/// Through this protocol the sending road protects without depending on libsrtp.
public protocol PacketProtection: AnyObject {
    /// `packet`, a whole RTP packet, protected (SRTP).
    func protectedRTP(_ packet: [UInt8]) throws -> [UInt8]
    /// `packet`, an RTCP compound packet, protected (SRTCP).
    func protectedRTCP(_ packet: [UInt8]) throws -> [UInt8]
}
