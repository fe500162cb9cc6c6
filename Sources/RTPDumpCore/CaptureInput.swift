import PacketCapture

/// Opens what the user named as INPUT.
public enum CaptureInput {
    /// Opens a capture file. RTSP URLs are recognised and refused with a clear message until the
    /// RTSP client lands.
    public static func open(_ input: String) throws -> CaptureFile {
        let lower = input.lowercased()
        if lower.hasPrefix("rtsp://") || lower.hasPrefix("rtsps://") {
            throw RTPDumpError(
                "RTSP input is not supported by this build yet; capture the stream to a pcap file instead")
        }
        do {
            return try CaptureFile(contentsOf: input)
        } catch {
            throw RTPDumpError("\(input): \(error)")
        }
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
