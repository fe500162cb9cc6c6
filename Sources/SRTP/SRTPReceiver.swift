import CSRTP
import CSRTPLoader

/// Unprotects what one sender sends: SRTP and SRTCP of any SSRC with one master key (libsrtp's
/// `ssrc_any_inbound`: a stream per SSRC, made on its first packet, each with its own rollover counter
/// across sequence-number wraps and its own replay window). A packet that fails authentication or is a
/// replay is refused and counted, never passed on.
///
/// Not thread-safe: use one receiver from one thread (or one actor) at a time.
public final class SRTPReceiver {
    /// Packets whose tag did not match (RTP and RTCP).
    public private(set) var authenticationFailures = 0
    /// Packets refused as replays (already received, or older than the replay window).
    public private(set) var replays = 0
    public let suite: SRTPSuite
    private var session: srtp_t?
    private let library: csrtp_api

    /// - Parameter replayWindow: packets of reordering the replay check tolerates (64 to 32,767;
    ///   libsrtp's default is 128; 1024 covers what the reorder buffer holds).
    public init(key: SRTPKey, replayWindow: Int = 1024) throws(SRTPError) {
        library = try SRTPLibrary.functions()
        suite = key.suite
        session = try SRTPLibrary.session(key: key, inbound: true, replayWindow: replayWindow, library: library)
    }

    deinit {
        if let session { _ = library.srtp_dealloc(session) }
    }

    /// The RTP packet inside an SRTP packet.
    public func unprotect(_ packet: some Collection<UInt8>) throws(SRTPError) -> [UInt8] {
        try run(packet, isRTCP: false)
    }

    /// The RTCP compound packet inside an SRTCP packet.
    public func unprotectRTCP(_ packet: some Collection<UInt8>) throws(SRTPError) -> [UInt8] {
        try run(packet, isRTCP: true)
    }

    private func run(_ packet: some Collection<UInt8>, isRTCP: Bool) throws(SRTPError) -> [UInt8] {
        guard let session else { throw SRTPError(.library, "no SRTP session") }
        let minimum = isRTCP ? 8 + 4 : 12
        guard packet.count >= minimum, packet.count <= 1 << 16 else {
            throw SRTPError(.malformed, "\(packet.count) bytes cannot be \(isRTCP ? "SRTCP" : "SRTP")")
        }
        var bytes = Array(packet)
        var length = Int32(bytes.count)
        let status = bytes.withUnsafeMutableBytes { buffer in
            isRTCP
                ? library.srtp_unprotect_rtcp(session, buffer.baseAddress, &length)
                : library.srtp_unprotect(session, buffer.baseAddress, &length)
        }
        switch status {
        case srtp_err_status_ok:
            bytes.removeLast(bytes.count - Int(length))
            return bytes
        case srtp_err_status_auth_fail:
            authenticationFailures += 1
            throw SRTPError(.authenticationFailed, "an \(isRTCP ? "SRTCP" : "SRTP") packet failed authentication")
        case srtp_err_status_replay_fail, srtp_err_status_replay_old:
            replays += 1
            throw SRTPError(.replayed, "an \(isRTCP ? "SRTCP" : "SRTP") packet was a replay")
        default:
            throw SRTPError(
                .malformed, "libsrtp refused an \(isRTCP ? "SRTCP" : "SRTP") packet (error \(status.rawValue))")
        }
    }
}
