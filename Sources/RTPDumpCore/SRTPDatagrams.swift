import MediaPipeline
import PacketCapture
import RTP
import SRTP

/// A datagram source whose SRTP and SRTCP are unprotected with one key (`--srtp-key`): what passes
/// authentication goes on as plain RTP/RTCP; what fails is dropped and counted per flow, so none of its
/// bytes reach a depacketizer.
package final class SRTPDatagrams: DatagramSource, ReceivedItemSource {
    /// Where a datagram arrived: its addresses and ports.
    package struct Flow: Hashable, Sendable {
        package let source: SocketAddress
        package let destination: SocketAddress
    }

    private var source: any DatagramSource
    private let receiver: SRTPReceiver
    /// Authentication failures (and replays) per flow they arrived on. Not per SSRC: the SSRC is in the
    /// header that failed, and a packet whose SSRC was tampered with would be counted against no stream.
    package private(set) var failures: [Flow: Int] = [:]
    /// Datagrams too short or otherwise refused by libsrtp for another reason than authentication.
    package private(set) var malformed = 0

    package init(_ source: any DatagramSource, key: SRTPKey) throws(SRTPError) {
        self.source = source
        self.receiver = try SRTPReceiver(key: key)
    }

    package var warnings: CaptureWarnings { source.warnings }

    package func nextDatagram() throws -> UDPDatagram? {
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
                failures[Flow(source: datagram.source, destination: datagram.destination), default: 0] += 1
            } catch {
                malformed += 1
            }
        }
        return nil
    }

    /// The failures of a stream: those on its flow, and on its RTCP flow (each port one higher, RFC 3550's
    /// convention), whatever SSRC the packets claimed.
    package func failures(of stream: StreamKey) -> Int {
        func next(_ address: SocketAddress) -> SocketAddress {
            SocketAddress(address: address.address, port: address.port &+ 1)
        }
        return failures[Flow(source: stream.source, destination: stream.destination), default: 0]
            + failures[Flow(source: next(stream.source), destination: next(stream.destination)), default: 0]
    }

    /// All failures, on any flow.
    package var totalFailures: Int { failures.values.reduce(0, +) }
}
