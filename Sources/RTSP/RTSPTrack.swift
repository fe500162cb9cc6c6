import SDP

/// A track of a session: its format (from the SDP), its control URL, the transport the server agreed to, and
/// where it started (RTP-Info). What `RTSPSession.tracks` holds. Its description, debug description and mirror
/// leave out the `a=crypto` attributes: they hold the SRTP master key.
public struct RTSPTrack: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var control: RTSPURL
    /// Its format: video (H.264, H.265) or audio, from its media section.
    public var format: MediaFormat
    public var transport: TransportHeader?
    /// The media is SRTP (`RTP/SAVP`): SETUP asks for that profile.
    public var isSecure: Bool = false
    /// Its `a=crypto` attributes (RFC 4568), raw: the keys for SRTP.
    public var cryptoAttributes: [String] = []
    /// The SSRC the server said the track's RTP comes from (SETUP's Transport `ssrc=`, PLAY's RTP-Info),
    /// each reading of it (hex, decimal); empty when it said none, or 0 (a placeholder some send).
    public var announcedSSRCs: Set<UInt32> = []
    /// PLAY's RTP-Info for the track, when it gave one: advisory.
    public var rtpInfo: RTPInfo.Entry?
    /// Whether the client sends on it (the ONVIF audio backchannel: an `a=sendonly` section), rather than
    /// receives.
    public var isBackchannel = false

    public var description: String {
        "Track(\(control), \(format.encodingName) payload type \(format.payloadType)"
            + (isSecure ? ", SRTP with \(cryptoAttributes.count) key(s) hidden" : "") + ")"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "control": control, "format": format, "transport": transport as Any, "isSecure": isSecure,
                "announcedSSRCs": announcedSSRCs, "rtpInfo": rtpInfo as Any,
            ], displayStyle: .struct)
    }
}
