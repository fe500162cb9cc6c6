/// The RTP-Info header of a PLAY answer (RFC 2326 section 12.33; `ssrc` as RFC 7826 adds it): per stream,
/// its URL and the sequence number, RTP time and SSRC that playing starts from.
///
/// Advisory: cameras write it every way (relative or absolute URLs, URLs of another path, values in
/// decimal or hex, negative, with spaces, trailing `;`), and nothing here ever fails. A field that cannot
/// be read is nil.
public struct RTPInfo: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        /// The stream's URL as written (relative or absolute).
        public var url: String?
        public var sequenceNumber: UInt16?
        public var rtpTime: UInt32?
        /// `ssrc=` read as hex (as RFC 7826 writes it) and as decimal (as some cameras do): each reading
        /// that is a number.
        public var ssrcs: Set<UInt32> = []
    }

    public var entries: [Entry]

    public init(_ value: String) {
        entries = value.split(separator: ",").map { stream in
            var entry = Entry()
            for field in stream.split(separator: ";") {
                guard let equals = field.firstIndex(of: "=") else { continue }
                let name = field[..<equals].trimmingCharacters().lowercased()
                let text = field[field.index(after: equals)...].trimmingCharacters()
                switch name {
                case "url": entry.url = text
                case "seq": entry.sequenceNumber = Int64(text).flatMap { UInt16(exactly: $0) }
                case "rtptime": entry.rtpTime = Int64(text).flatMap { UInt32(exactly: $0) }
                case "ssrc": entry.ssrcs = TransportHeader.ssrcReadings(text[...])
                default: continue
                }
            }
            return entry
        }
    }

    /// The entry for each of `controls` (the tracks' URLs, in order): the one whose URL resolves to it
    /// against `base`; else, when no URL matches any track (a camera naming another path), the entry at
    /// the same position if there are as many entries as tracks.
    public func entries(for controls: [RTSPURL], base: RTSPURL) -> [Entry?] {
        let resolved = entries.map { entry in entry.url.map { base.resolving($0).description } }
        let byURL = controls.map { control in
            resolved.firstIndex { $0 == control.description }.map { entries[$0] }
        }
        if byURL.allSatisfy({ $0 == nil }) && entries.count == controls.count { return entries.map { $0 } }
        return byURL
    }
}
