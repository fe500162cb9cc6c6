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

        public init(url: String? = nil, sequenceNumber: UInt16? = nil, rtpTime: UInt32? = nil, ssrcs: Set<UInt32> = [])
        {
            self.url = url
            self.sequenceNumber = sequenceNumber
            self.rtpTime = rtpTime
            self.ssrcs = ssrcs
        }
    }

    public var entries: [Entry]

    /// A header of these entries (what a server answers a PLAY with); ``serialized()`` writes it.
    public init(entries: [Entry]) { self.entries = entries }

    /// The value as it goes on the wire: per stream `url=...;seq=...;rtptime=...` (and `ssrc=`, in hex, for an
    /// entry of one SSRC), streams separated by `,`. Reading it back gives the same entries.
    public func serialized() -> String {
        entries.map { entry in
            var fields: [String] = []
            if let url = entry.url { fields.append("url=\(url.filter { $0 != ";" && $0 != "," })") }
            if let sequenceNumber = entry.sequenceNumber { fields.append("seq=\(sequenceNumber)") }
            if let rtpTime = entry.rtpTime { fields.append("rtptime=\(rtpTime)") }
            if entry.ssrcs.count == 1, let ssrc = entry.ssrcs.first {
                fields.append("ssrc=\(TransportHeader.ssrcText(ssrc))")
            }
            return fields.joined(separator: ";")
        }.joined(separator: ",")
    }

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
