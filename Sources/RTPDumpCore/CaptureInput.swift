import RTSPCapture
import PacketCapture

/// Opens what the user named as INPUT.
package enum CaptureInput {
    /// Opens a capture file. An RTSP URL is refused with a message that says so (``LiveSessionSource``
    /// plays URLs).
    package static func open(_ input: String) throws -> CaptureFile {
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

    /// Opens a capture file as the commands read it, once, as ``RTSPSessionDatagrams``: with the RTP
    /// interleaved in its RTSP connections, and what its RTSP exchange says before the first media packet
    /// (``RTSPSessionDatagrams/lookAheadForSession()``). The session is nil when the capture has no RTSP there.
    package static func openWithSession(_ input: String) throws -> (
        source: RTSPSessionDatagrams, session: RTSPSessionInfo?
    ) {
        var source = RTSPSessionDatagrams(capture: try open(input))
        do {
            let session = try source.lookAheadForSession()
            return (source, session)
        } catch {
            throw RTPDumpError("\(input): \(error)")
        }
    }

    /// One line per kind of thing the reader skipped, for stderr.
    package static func warningLines(_ w: CaptureWarnings) -> [String] {
        var lines: [String] = []
        if w.truncatedAtEnd { lines.append("warning: the capture ends in the middle of a record (cut short?)") }
        let counts: [(Int, String)] = [
            (w.snaplenTruncated, "datagrams cut short by the capture's snaplen (headers counted, payload unusable)"),
            (w.malformed, "malformed IP or UDP headers skipped"),
            (w.fragmentsDropped, "IP fragments that could not be reassembled"),
            (w.unsupportedLinkType, "records of an unsupported link type skipped"),
            (w.droppedForSlowReader, "packets dropped because the output fell behind (a stalled pipe or a slow disk)"),
            (w.unreadAtDeadline, "packets received and left unread when --duration was up (the reader fell behind)"),
        ]
        for (count, what) in counts where count > 0 { lines.append("warning: \(count) \(what)") }
        return lines
    }
}
