import PacketCapture

/// Opens what the user named as INPUT.
public enum CaptureInput {
    /// Opens a capture file. An RTSP URL is refused with a message that says so (``LiveSessionSource``
    /// plays URLs).
    public static func open(_ input: String) throws -> CaptureFile {
        let lower = input.lowercased()
        if lower.hasPrefix("rtsp://") || lower.hasPrefix("rtsps://") {
            throw RTPDumpError("an RTSP URL is not a capture file; play it with LiveSessionSource")
        }
        do {
            return try CaptureFile(contentsOf: input)
        } catch {
            throw RTPDumpError("\(input): \(error)")
        }
    }

    /// Opens a capture file as the commands read it: first a look at its start for an RTSP session
    /// (``RTSPSessionInfo/scan(_:maxRecords:)``), then the file again from its start. A session whose RTP is
    /// interleaved in its RTSP connection is read from that connection (``RTSPSessionDatagrams``); anything
    /// else as the capture's UDP datagrams.
    public static func openWithSession(_ input: String) throws -> (source: any DatagramSource, session: RTSPSessionInfo?) {
        var scan = try open(input)
        let session = try RTSPSessionInfo.scan(&scan)
        let capture = try open(input)
        if let session, !session.rtpChannels.isEmpty {
            return (RTSPSessionDatagrams(capture: capture, info: session), session)
        }
        return (capture, session)
    }

    /// One line per kind of thing the reader skipped, for stderr.
    public static func warningLines(_ w: CaptureWarnings) -> [String] {
        var lines: [String] = []
        if w.truncatedAtEnd { lines.append("warning: the capture ends in the middle of a record (cut short?)") }
        let counts: [(Int, String)] = [
            (w.snaplenTruncated, "datagrams cut short by the capture's snaplen (headers counted, payload unusable)"),
            (w.malformed, "malformed IP or UDP headers skipped"),
            (w.fragmentsDropped, "IP fragments that could not be reassembled"),
            (w.unsupportedLinkType, "records of an unsupported link type skipped"),
        ]
        for (count, what) in counts where count > 0 { lines.append("warning: \(count) \(what)") }
        return lines
    }
}
