import PacketCapture
import RTP
import SRTP

/// A datagram source whose SRTP and SRTCP are unprotected with one key (`--srtp-key`): what passes
/// authentication goes on as plain RTP/RTCP; what fails is dropped and counted per SSRC, so none of its
/// bytes reach a depacketizer.
public final class SRTPDatagrams: DatagramSource {
    private var source: any DatagramSource
    private let receiver: SRTPReceiver
    /// Authentication failures (and replays) per SSRC (the SSRC is in the clear header).
    public private(set) var failures: [UInt32: Int] = [:]
    /// Datagrams too short or otherwise refused by libsrtp for another reason than authentication.
    public private(set) var malformed = 0

    public init(_ source: any DatagramSource, key: SRTPKey) throws(SRTPError) {
        self.source = source
        self.receiver = try SRTPReceiver(key: key)
    }

    public var warnings: CaptureWarnings { source.warnings }
    public var senderClocks: (@Sendable (UInt32) -> SenderClock?)? { source.senderClocks }

    public func nextDatagram() throws -> UDPDatagram? {
        while let datagram = try source.nextDatagram() {
            guard !datagram.isTruncated else { return datagram }  // counted by streams, never depacketized
            let isRTCP = RTPPacket.looksLikeRTCP(datagram.payload)
            do {
                let plain =
                    isRTCP ? try receiver.unprotectRTCP(datagram.payload) : try receiver.unprotect(datagram.payload)
                return UDPDatagram(
                    recordIndex: datagram.recordIndex, time: datagram.time, source: datagram.source,
                    destination: datagram.destination, payload: plain[...], isTruncated: false)
            } catch  where error.code == .authenticationFailed || error.code == .replayed {
                failures[ssrc(of: datagram.payload, isRTCP: isRTCP), default: 0] += 1
            } catch {
                malformed += 1
            }
        }
        return nil
    }

    private func ssrc(of bytes: ArraySlice<UInt8>, isRTCP: Bool) -> UInt32 {
        let offset = bytes.startIndex + (isRTCP ? 4 : 8)
        guard bytes.endIndex >= offset + 4 else { return 0 }
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
