import RTP
/// One NAL unit: its header and payload, without a start code or length prefix. A view into the buffer
/// that holds it (an access unit's, usually).
public struct NALUnit: Sendable {
    public let codec: VideoCodec
    public let bytes: ArraySlice<UInt8>

    public init(codec: VideoCodec, bytes: ArraySlice<UInt8>) {
        self.codec = codec
        self.bytes = bytes
    }

    /// The nal_unit_type: 5 bits for H.264, 6 bits for H.265.
    public var type: UInt8 { NALUnit.type(of: bytes, codec: codec) }

    /// The type's name as the specifications spell it (`IDR`, `SPS`, `IDR_W_RADL`, ...).
    public var typeName: String { codec == .h264 ? H264NALType.name(type) : H265NALType.name(type) }

    /// Whether this NAL carries coded picture data (a slice or slice segment).
    public var isVCL: Bool { codec == .h264 ? (1...5).contains(type) : type < 32 }

    /// Whether this is a random-access point: an IDR picture (H.264) or an IRAP picture (H.265: BLA, IDR, CRA).
    public var isKeyframe: Bool { codec == .h264 ? type == 5 : (16...23).contains(type) }

    /// Whether this is a VPS, SPS or PPS.
    public var isParameterSet: Bool { codec == .h264 ? (type == 7 || type == 8) : (32...34).contains(type) }

    /// Whether this is an access unit delimiter.
    public var isAccessUnitDelimiter: Bool { codec == .h264 ? type == 9 : type == 35 }

    static func type(of bytes: ArraySlice<UInt8>, codec: VideoCodec) -> UInt8 {
        guard let first = bytes.first else { return 0 }
        return codec == .h264 ? first & 0x1F : (first >> 1) & 0x3F
    }
}

/// Names of H.264 NAL unit types (ITU-T H.264 table 7-1, RFC 6184 table 3).
public enum H264NALType {
    public static func name(_ type: UInt8) -> String {
        switch type {
        case 1: return "SLICE"
        case 2: return "SLICE_A"
        case 3: return "SLICE_B"
        case 4: return "SLICE_C"
        case 5: return "IDR"
        case 6: return "SEI"
        case 7: return "SPS"
        case 8: return "PPS"
        case 9: return "AUD"
        case 10: return "END_SEQ"
        case 11: return "END_STREAM"
        case 12: return "FILLER"
        case 13: return "SPS_EXT"
        case 14: return "PREFIX"
        case 15: return "SUBSET_SPS"
        case 19: return "AUX_SLICE"
        case 20: return "SLICE_EXT"
        case 24: return "STAP-A"
        case 25: return "STAP-B"
        case 26: return "MTAP16"
        case 27: return "MTAP24"
        case 28: return "FU-A"
        case 29: return "FU-B"
        default: return "TYPE\(type)"
        }
    }
}

/// Names of H.265 NAL unit types (ITU-T H.265 table 7-1, RFC 7798 section 4.4).
public enum H265NALType {
    public static func name(_ type: UInt8) -> String {
        switch type {
        case 0: return "TRAIL_N"
        case 1: return "TRAIL_R"
        case 2: return "TSA_N"
        case 3: return "TSA_R"
        case 4: return "STSA_N"
        case 5: return "STSA_R"
        case 6: return "RADL_N"
        case 7: return "RADL_R"
        case 8: return "RASL_N"
        case 9: return "RASL_R"
        case 16: return "BLA_W_LP"
        case 17: return "BLA_W_RADL"
        case 18: return "BLA_N_LP"
        case 19: return "IDR_W_RADL"
        case 20: return "IDR_N_LP"
        case 21: return "CRA"
        case 32: return "VPS"
        case 33: return "SPS"
        case 34: return "PPS"
        case 35: return "AUD"
        case 36: return "EOS"
        case 37: return "EOB"
        case 38: return "FD"
        case 39: return "PREFIX_SEI"
        case 40: return "SUFFIX_SEI"
        case 48: return "AP"
        case 49: return "FU"
        case 50: return "PACI"
        default: return "TYPE\(type)"
        }
    }
}
