/// The audio codecs a receiver takes apart: what an `a=rtpmap` encoding name (or a static payload type)
/// says a media section carries.
public enum AudioCodec: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// G.711 µ-law (RFC 3551 `PCMU`, static payload type 0).
    case pcmu
    /// G.711 A-law (RFC 3551 `PCMA`, static payload type 8).
    case pcma
    /// Linear 16-bit big-endian PCM (RFC 3551 `L16`, static payload types 10 and 11).
    case l16
    /// AAC in RFC 3640's `mpeg4-generic` (AAC-hbr, AAC-lbr): access units behind AU headers.
    case aac
    /// AAC in RFC 6416's `MP4A-LATM`: access units in LATM AudioMuxElements.
    case aacLATM
    /// Opus (RFC 7587): one packet per RTP payload.
    case opus
    /// G.722 (RFC 3551 `G722`, static payload type 9): 16 kHz audio on an 8000 Hz RTP clock.
    case g722
    /// G.726 ADPCM at 16, 24, 32 or 40 kbit/s (RFC 3551 `G726-16` ... `G726-40`; `AAL2-G726-*` for the other
    /// bit order): ``AudioFormat/bitsPerSample`` and ``AudioFormat/packing`` say which.
    case g726

    /// The codec an `a=rtpmap` encoding name names (any case); nil for one this library does not take.
    public init?(encodingName: some StringProtocol) {
        switch encodingName.uppercased() {
        case "PCMU": self = .pcmu
        case "PCMA": self = .pcma
        case "L16": self = .l16
        case "MPEG4-GENERIC": self = .aac
        case "MP4A-LATM": self = .aacLATM
        case "OPUS": self = .opus
        case "G722": self = .g722
        case let name where G726Packing.parse(name) != nil: self = .g726
        default: return nil
        }
    }

    /// The encoding name as SDP writes it.
    public var encodingName: String {
        switch self {
        case .pcmu: "PCMU"
        case .pcma: "PCMA"
        case .l16: "L16"
        case .aac: "MPEG4-GENERIC"
        case .aacLATM: "MP4A-LATM"
        case .opus: "opus"
        case .g722: "G722"
        case .g726: "G726"
        }
    }

    public var description: String { encodingName }
}

/// What a receiver needs from an audio media section: the payload type, the clock and channels, and the
/// format parameters of AAC typed (RFC 3640 section 4.1, RFC 6416 section 7.1).
public struct AudioFormat: Sendable, Hashable {
    public var codec: AudioCodec
    public var payloadType: UInt8
    /// The RTP clock rate: the sampling rate, except for Opus (always 48000).
    public var clockRate: Int
    /// Channels, from the `a=rtpmap` (1 when it names none).
    public var channels: Int
    /// RFC 3640's AU header fields, in bits: each AU's size, its index (the first AU of a packet) and index
    /// delta (the others); 0 where absent (AAC-hbr: 13, 3, 3).
    public var sizeLength: Int
    public var indexLength: Int
    public var indexDeltaLength: Int
    /// RFC 3640's optional AU header fields, in bits (0 when absent): CTS-delta, DTS-delta, and the
    /// random-access and stream-state flags.
    public var ctsDeltaLength: Int
    public var dtsDeltaLength: Int
    public var randomAccessIndication: Bool
    public var streamStateIndication: Int
    /// RFC 3640's `auxiliaryDataSizeLength`: bits of the auxiliary section's size (0: no section).
    public var auxiliaryDataSizeLength: Int
    /// RFC 3640's `constantSize`: every AU this many bytes (no AU size fields); from an SDP, 1 to 2^20.
    public var constantSize: Int?
    /// RFC 3640's `constantDuration`, or the AU duration the config implies (1024 samples for AAC); from an
    /// SDP, 1 to 2^24 ticks.
    public var constantDuration: Int?
    /// RFC 3640's `mode` (`AAC-hbr`, `AAC-lbr`, ...), as written.
    public var mode: String?
    /// The decoder configuration, hex as the fmtp writes it: `config` (AudioSpecificConfig for
    /// mpeg4-generic, StreamMuxConfig for MP4A-LATM).
    public var config: String?
    /// MP4A-LATM's `cpresent`: whether the StreamMuxConfig travels in band (1, the default) or only in the
    /// fmtp (0).
    public var muxConfigPresent: Bool
    /// G.726's code word size: 2, 3, 4 or 5 bits (16, 24, 32, 40 kbit/s); 0 for the other codecs.
    public var bitsPerSample: Int
    /// How G.726 code words are packed into bytes: as RFC 3551 says (`G726-*`), or in AAL2's order
    /// (`AAL2-G726-*`). A sender that names one and sends the other (GStreamer's `rtpg726pay` with its
    /// default `force-aal2=true`, and cameras built on it) is played by setting this.
    public var packing: G726Packing

    /// The rate the audio is sampled at: the RTP clock's, except G.722's (16 kHz on an 8000 Hz clock, RFC 3551
    /// section 4.5.2) and Opus's (always 48 kHz).
    public var sampleRate: Int {
        switch codec {
        case .g722: 16000
        case .opus: 48000
        default: clockRate
        }
    }

    /// The encoding name as SDP writes it, with G.726's rate and bit order (`G726-32`, `AAL2-G726-24`).
    public var encodingName: String {
        guard codec == .g726 else { return codec.encodingName }
        return (packing == .aal2 ? "AAL2-" : "") + "G726-\(bitsPerSample * 8)"
    }

    public init(codec: AudioCodec, payloadType: UInt8, clockRate: Int, channels: Int = 1) {
        self.codec = codec
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.channels = channels
        sizeLength = 0
        indexLength = 0
        indexDeltaLength = 0
        ctsDeltaLength = 0
        dtsDeltaLength = 0
        randomAccessIndication = false
        streamStateIndication = 0
        auxiliaryDataSizeLength = 0
        muxConfigPresent = true
        bitsPerSample = 0
        packing = .rfc3551
    }

    /// A G.726 format: `bitsPerSample` 2 to 5 (16 to 40 kbit/s), 8000 Hz.
    public static func g726(payloadType: UInt8, bitsPerSample: Int, packing: G726Packing = .rfc3551) -> AudioFormat {
        var format = AudioFormat(codec: .g726, payloadType: payloadType, clockRate: 8000)
        format.bitsPerSample = bitsPerSample
        format.packing = packing
        return format
    }

    /// The static payload types of RFC 3551 that carry these codecs without an `a=rtpmap`.
    public static func staticFormat(payloadType: UInt8) -> AudioFormat? {
        switch payloadType {
        case 0: AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000)
        case 8: AudioFormat(codec: .pcma, payloadType: 8, clockRate: 8000)
        case 10: AudioFormat(codec: .l16, payloadType: 10, clockRate: 44100, channels: 2)
        case 11: AudioFormat(codec: .l16, payloadType: 11, clockRate: 44100)
        case 9: AudioFormat(codec: .g722, payloadType: 9, clockRate: 8000)
        default: nil
        }
    }
}

extension MediaDescription {
    /// The first audio format of this section this library takes apart (by `a=rtpmap`, or by a static
    /// payload type without one), if it carries one.
    public var audioFormat: AudioFormat? {
        for payloadType in payloadTypes {
            guard let map = rtpMap(for: payloadType) else {
                if let known = AudioFormat.staticFormat(payloadType: payloadType) { return known }
                continue
            }
            guard let codec = AudioCodec(encodingName: map.encodingName), map.hasUsableClockRate else { continue }
            var format = AudioFormat(
                codec: codec, payloadType: payloadType, clockRate: map.clockRate,
                channels: max(1, min(map.channels ?? 1, 255)))
            if codec == .g726, let (packing, bits) = G726Packing.parse(map.encodingName) {
                (format.packing, format.bitsPerSample) = (packing, bits)
            }
            let fmtp = formatParameters(for: payloadType)
            // Bounded where input decides how many bits are read: a field is at most 32 bits.
            func bits(_ name: String) -> Int { min(32, max(0, fmtp.integer(name) ?? 0)) }
            format.sizeLength = bits("sizelength")
            format.indexLength = bits("indexlength")
            format.indexDeltaLength = bits("indexdeltalength")
            format.ctsDeltaLength = bits("ctsdeltalength")
            format.dtsDeltaLength = bits("dtsdeltalength")
            format.randomAccessIndication = fmtp.integer("randomaccessindication") == 1
            format.streamStateIndication = bits("streamstateindication")
            format.auxiliaryDataSizeLength = bits("auxiliarydatasizelength")
            // A unit's size and duration bounded (a megabyte; 2^24 ticks, minutes at any audio clock), so that
            // the products a depacketizer forms from them stay far inside an Int.
            format.constantSize = fmtp.integer("constantsize").flatMap { (1...(1 << 20)).contains($0) ? $0 : nil }
            format.constantDuration = fmtp.integer("constantduration").flatMap {
                (1...(1 << 24)).contains($0) ? $0 : nil
            }
            format.mode = fmtp["mode"]
            format.config = fmtp["config"]
            format.muxConfigPresent = fmtp.integer("cpresent") != 0
            // Anpviz sends mpeg4-generic with a config and nothing else: its AU headers are AAC-hbr's.
            if codec == .aac && format.sizeLength == 0 && format.constantSize == nil {
                (format.sizeLength, format.indexLength, format.indexDeltaLength) = (13, 3, 3)
            }
            return format
        }
        return nil
    }
}

/// The two orders G.726 code words are packed in (RFC 3551 section 4.5.4).
public enum G726Packing: String, Sendable, Hashable, CaseIterable {
    /// `G726-*`: the first code word in the least significant bits of the first byte.
    case rfc3551
    /// `AAL2-G726-*` (ITU-T I.366.2 annex E): the first code word in the most significant bits.
    case aal2

    /// The bit order and code word size a G.726 encoding name says (`G726-32`, `AAL2-G726-24`; any case); nil
    /// for another name or rate.
    static func parse(_ name: some StringProtocol) -> (order: G726Packing, bitsPerSample: Int)? {
        var rest = name.uppercased()[...]
        var order = G726Packing.rfc3551
        if rest.hasPrefix("AAL2-") {
            order = .aal2
            rest = rest.dropFirst(5)
        }
        guard rest.hasPrefix("G726-"), let rate = Int(rest.dropFirst(5)), [16, 24, 32, 40].contains(rate) else {
            return nil
        }
        return (order, rate / 8)
    }
}
