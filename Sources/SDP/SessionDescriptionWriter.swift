// The writing side: the description a server answers DESCRIBE with, from the formats of its tracks. What it
// writes, `MediaDescription.videoFormat` / `audioFormat` / `dataFormat` read back as the same formats.

extension SessionDescription {
    /// The description of a session of `formats` (RFC 8866, with RFC 2326's `a=control`): `v=`, `o=`, `s=`,
    /// `c=`, `t=`, then a media section per format, in order, its control `trackID=<index>`. `address` is the
    /// server's (for `o=` and `c=`; unicast sessions receive where they SETUP, whatever it says). With `crypto` (an
    /// RFC 4568 `a=crypto` value), every section is `RTP/SAVP` with that key. With `range` (`npt=0-12.5`), the
    /// session has an `a=range` (RFC 2326 C.1.5): a recording of that length. With `backchannel`, the ONVIF audio
    /// backchannel follows the tracks (ONVIF Streaming Specification 5.3): a section of that format, its control
    /// `trackID=<formats.count>`, `a=sendonly` (the client sends on it), each track before it `a=recvonly`.
    public static func text(
        describing formats: [MediaFormat], sessionName: String = "swift-rtp", sessionID: UInt64 = 1,
        address: String = "0.0.0.0", crypto: String? = nil, range: String? = nil, backchannel: AudioFormat? = nil
    ) -> String {
        let family = address.contains(":") ? "IP6" : "IP4"
        var lines = [
            "v=0", "o=- \(sessionID) 1 IN \(family) \(address)", "s=\(sessionName.sdpLineSafe)",
            "c=IN \(family) \(address)", "t=0 0", "a=control:*",
        ]
        if let range { lines.append("a=range:\(range.sdpLineSafe)") }
        for (index, format) in formats.enumerated() {
            lines += format.mediaSectionLines(control: "trackID=\(index)", crypto: crypto)
            if backchannel != nil { lines.append("a=recvonly") }
        }
        if let backchannel {
            let control = "trackID=\(formats.count)"
            lines += MediaFormat.audio(backchannel).mediaSectionLines(control: control, crypto: crypto)
            lines.append("a=sendonly")
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

extension MediaFormat {
    /// The lines of this format's media section: `m=`, `a=rtpmap`, `a=fmtp` when it has parameters, and
    /// `a=control:<control>`; with `crypto`, the profile is `RTP/SAVP` and `a=crypto` carries it.
    public func mediaSectionLines(control: String, crypto: String? = nil) -> [String] {
        let profile = crypto == nil ? "RTP/AVP" : "RTP/SAVP"
        let payloadType = self.payloadType
        var lines: [String]
        var parameters: [String] = []
        switch self {
        case .video(let format):
            lines = ["m=video 0 \(profile) \(payloadType)"]
            switch format.codec {
            case .h264:
                lines.append("a=rtpmap:\(payloadType) H264/\(format.clockRate)")
                parameters.append("packetization-mode=\(format.packetizationMode)")
                if let profile = format.profileLevelID { parameters.append("profile-level-id=\(profile)") }
            case .h265:
                lines.append("a=rtpmap:\(payloadType) H265/\(format.clockRate)")
            case .jpeg:
                lines.append("a=rtpmap:\(payloadType) JPEG/\(format.clockRate)")
                if let size = format.pictureSize { lines.append("a=x-dimensions:\(size.width),\(size.height)") }
            }
            parameters += format.parameterSetAttributes.map { "\($0.name)=\($0.value)" }
        case .audio(let format):
            lines = ["m=audio 0 \(profile) \(payloadType)"]
            let channels = format.channels > 1 || format.codec == .opus ? "/\(max(format.channels, 1))" : ""
            lines.append("a=rtpmap:\(payloadType) \(format.encodingName)/\(format.clockRate)\(channels)")
            if format.codec == .aac {
                parameters = [
                    "streamtype=5", "profile-level-id=1", "mode=\(format.mode ?? "AAC-hbr")",
                    "sizelength=\(format.sizeLength)", "indexlength=\(format.indexLength)",
                    "indexdeltalength=\(format.indexDeltaLength)",
                ]
                if let config = format.config { parameters.append("config=\(config)") }
            } else if format.codec == .aacLATM, let config = format.config {
                parameters = ["cpresent=\(format.muxConfigPresent ? 1 : 0)", "config=\(config)"]
            }
        case .data(let format):
            lines = ["m=\(format.mediaType.sdpLineSafe) 0 \(profile) \(payloadType)"]
            let name: String? =
                switch format.content {
                case .onvifMetadata(let gzip): gzip ? "vnd.onvif.metadata.gzip" : "vnd.onvif.metadata"
                case .raw: format.encodingName
                }
            if let name { lines.append("a=rtpmap:\(payloadType) \(name.sdpLineSafe)/\(format.clockRate)") }
        }
        if !parameters.isEmpty { lines.append("a=fmtp:\(payloadType) " + parameters.joined(separator: ";")) }
        if let crypto { lines.append("a=crypto:\(crypto.sdpLineSafe)") }
        lines.append("a=control:\(control.sdpLineSafe)")
        return lines
    }
}

extension String {
    /// The text without line breaks, which would end its line and start another.
    fileprivate var sdpLineSafe: String { String(filter { !$0.isNewline }) }
}
