import RTP
/// Tells H.264 from H.265 by the first bytes of RTP payloads, for captures without an SDP.
///
/// A payload is plausible for a codec when its header has the forbidden bit clear and a type that codec's
/// RTP format commonly carries (H.265 also needs nuh_layer_id 0 and TemporalId above 0). The common
/// H.264 header bytes (0x67 SPS, 0x65 IDR, 0x41 slice, 0x7C FU-A ...) decode as undefined H.265 types or
/// non-zero layers, and the H.265 ones (0x40 VPS, 0x62 FU, 0x02 TRAIL_R ...) as H.264 types 0 and 2, so
/// most payloads decide alone; the others are left undecided.
package enum CodecSniffer {
    /// The codec this payload can only belong to, or nil when it fits both or neither.
    package static func codec(ofPayload payload: ArraySlice<UInt8>) -> VideoCodec? {
        switch (plausibleH264(payload), plausibleH265(payload)) {
        case (true, false): return .h264
        case (false, true): return .h265
        default: return nil
        }
    }

    /// What a payload is when its first bytes are the signature of data, not video: KLV (a SMPTE 336M
    /// universal label, 06 0E 2B 34), XML (an ONVIF metadata document: `<?xml`, `<tt:`), gzip (1F 8B 08). The
    /// NAL unit headers they would be read as (an H.264 SEI, an FU-A) are otherwise plausible.
    package static func dataSignature(ofPayload payload: ArraySlice<UInt8>) -> String? {
        if payload.starts(with: [0x06, 0x0E, 0x2B, 0x34]) { return "KLV" }
        if payload.starts(with: Array("<?xml".utf8)) || payload.starts(with: Array("<tt:".utf8)) { return "XML" }
        if payload.starts(with: [0x1F, 0x8B, 0x08]) { return "gzip" }
        return nil
    }

    static func plausibleH264(_ payload: ArraySlice<UInt8>) -> Bool {
        guard let first = payload.first, first & 0x80 == 0 else { return false }
        return [1, 5, 6, 7, 8, 9, 24, 25, 26, 27, 28, 29].contains(first & 0x1F)
    }

    static func plausibleH265(_ payload: ArraySlice<UInt8>) -> Bool {
        guard payload.count >= 2 else { return false }
        let first = payload[payload.startIndex]
        let second = payload[payload.startIndex + 1]
        guard first & 0x81 == 0, second >> 3 == 0, second & 0x07 != 0 else { return false }
        let type = first >> 1 & 0x3F
        return (0...9).contains(type) || (16...21).contains(type) || (32...40).contains(type)
            || (48...50).contains(type)
    }
}
