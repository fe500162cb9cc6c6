@_spi(SansIO) import DTLS
import SRTP

extension DTLSEndpoint {
    /// A finished handshake's SRTP: what we send with and what we read the peer's packets with, once its
    /// certificate is the one its session description named (`expected`, a SHA-256 fingerprint); or why not, for
    /// `peer` (`viewer's offer`, `endpoint's answer`).
    func srtp(expecting expected: [UInt8], namedBy peer: String) -> Result<
        (sender: SRTPSender, receiver: SRTPReceiver), WebRTCError
    > {
        guard peerFingerprint == expected else {
            return .failure(WebRTCError("the DTLS certificate is not the one the \(peer) named"))
        }
        do {
            let keys = try srtpKeys()
            return .success((try SRTPSender(key: keys.local), try SRTPReceiver(key: keys.remote)))
        } catch {
            return .failure(WebRTCError("SRTP could not be keyed: \(error)"))
        }
    }
}
