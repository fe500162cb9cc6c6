import SDP

/// SDP both sides of our WebRTC read and write alike: the viewer's offer and the endpoint's answer read, the
/// viewer's answer (``WebRTCAnswer``) and the publisher's offer (``WHIPOffer``) written.
enum SessionLines {
    /// `text` read as a session description, or why it is not one (`what`: `offer`, `answer`).
    static func read(_ text: String, as what: String) throws(WebRTCError) -> SessionDescription {
        do {
            return try SessionDescription(text)
        } catch {
            throw WebRTCError("the \(what) is not a session description this reads: \(error.reason)")
        }
    }

    /// The stream a section sends: its SSRC, named by our CNAME, in the media stream of `sourceTrack`.
    static func stream(sourceTrack: Int, ssrc: UInt32) -> [String] {
        [
            "a=msid:swift-rtp track\(sourceTrack)", "a=ssrc:\(ssrc) cname:swift-rtp",
            "a=ssrc:\(ssrc) msid:swift-rtp track\(sourceTrack)",
        ]
    }

    /// Our host candidates, each a priority below the one before (RFC 8445 section 5.1.2), and their end.
    static func candidates(_ candidates: [WebRTCAnswer.Candidate]) -> [String] {
        candidates.enumerated().map { number, candidate in
            "a=candidate:\(number + 1) 1 udp \(2_130_706_431 - number) \(candidate.address) \(candidate.port) typ host"
        } + ["a=end-of-candidates"]
    }
}
