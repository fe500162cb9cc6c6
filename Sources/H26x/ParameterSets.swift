import RTP

/// The parameter sets (VPS, SPS, PPS) a stream has announced, by type and id: from the SDP and in band.
public struct ParameterSets: Sendable {
    public let codec: VideoCodec
    /// At most this many sets of each type are kept (the specifications allow 32 SPS and 256 PPS ids;
    /// H.265 allows 16 VPS, 16 SPS, 64 PPS).
    public static let maxPerType = 256
    /// A parameter set larger than this is refused.
    public static let maxSize = 65_536

    private var sets: [Key: [UInt8]] = [:]

    struct Key: Hashable, Sendable {
        let type: UInt8
        let id: UInt32
    }

    public init(codec: VideoCodec) {
        self.codec = codec
    }

    /// Stores a parameter-set NAL unit. Returns whether it is new or differs from the one with its id.
    @discardableResult
    public mutating func update(_ nal: NALUnit) -> Bool {
        guard nal.isParameterSet, nal.bytes.count <= Self.maxSize else { return false }
        let key = Key(type: nal.type, id: Self.id(of: nal))
        if let known = sets[key], known.elementsEqual(nal.bytes) { return false }
        guard sets[key] != nil || sets.keys.filter({ $0.type == key.type }).count < Self.maxPerType else {
            return false
        }
        sets[key] = Array(nal.bytes)
        return true
    }

    /// Whether any parameter set is known.
    public var isEmpty: Bool { sets.isEmpty }

    /// Every set, VPS first, then SPS, then PPS, each by id: the order a decoder needs them in.
    public var all: [NALUnit] {
        sets.keys.sorted { ($0.type, $0.id) < ($1.type, $1.id) }.compactMap { key in
            sets[key].map { NALUnit(codec: codec, bytes: $0[...]) }
        }
    }

    /// The parsed SPS with the lowest id, if one is known and parses.
    public var sequenceParameterSet: SequenceParameterSet? {
        all.first { $0.type == (codec == .h264 ? 7 : 33) }.flatMap { try? SequenceParameterSet($0) }
    }

    /// The id a parameter set declares (0 when it cannot be read).
    static func id(of nal: NALUnit) -> UInt32 {
        switch (nal.codec, nal.type) {
        case (.h264, 7):  // SPS: after profile, constraints, level
            var r = BitReader(rbspOf: nal.bytes, headerLength: 4)
            return (try? r.unsignedGolomb()) ?? 0
        case (.h264, 8), (.h265, 34):  // PPS: its first field
            var r = BitReader(rbspOf: nal.bytes, headerLength: nal.codec == .h264 ? 1 : 2)
            return (try? r.unsignedGolomb()) ?? 0
        case (.h265, 32):  // VPS: 4 bits
            var r = BitReader(rbspOf: nal.bytes, headerLength: 2)
            return (try? r.bits(4)) ?? 0
        case (.h265, 33):
            return (try? SequenceParameterSet(nal))?.id ?? 0
        default:
            return 0
        }
    }
}

extension ParameterSets {
    /// Parses SDP parameter-set attributes: `sprop-parameter-sets` for H.264, `sprop-vps`, `sprop-sps` and
    /// `sprop-pps` for H.265. Each value is a comma-separated list of base64 NAL units. Tolerated: an empty
    /// entry (a trailing comma), whitespace, a start code inside an entry (several NALs in one entry).
    ///
    /// - Throws: ``H26xError`` naming the parameter and entry when an entry is not base64 or is no
    ///   parameter set (the valid entries are added all the same).
    public mutating func add(sdpParameter name: String, value: String) throws(H26xError) {
        if let problem = addValid(sdpParameter: name, value: value).first { throw problem }
    }

    /// As ``add(sdpParameter:value:)``, for a receiver that goes on without what is wrong: adds every
    /// parameter set the attribute holds and returns one ``H26xError`` per entry or NAL unit it left out.
    /// Cameras send garbage here (an AUD, a truncated set) while their stream carries good sets in band.
    public mutating func addValid(sdpParameter name: String, value: String) -> [H26xError] {
        var problems: [H26xError] = []
        for (index, entry) in value.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let text = entry.filter { !$0.isWhitespace }
            if text.isEmpty { continue }
            guard let decoded = Base64.decode(text[...]) else {
                problems.append(
                    H26xError(
                        .invalidSDPParameter,
                        "\(name) entry \(index + 1) is not valid base64; check the camera's SDP (a=fmtp line)"))
                continue
            }
            for range in AnnexB.split(decoded[...]) {
                let nal = NALUnit(codec: codec, bytes: decoded[range])
                guard nal.isParameterSet else {
                    problems.append(
                        H26xError(
                            .invalidSDPParameter,
                            "\(name) entry \(index + 1) holds a \(nal.typeName) NAL unit, not a parameter set"))
                    continue
                }
                update(nal)
            }
        }
        return problems
    }
}

extension ParameterSets {
    /// The format parameters that announce these sets in an SDP (RFC 6184 section 8.1, RFC 7798 section 7.1),
    /// name and value: `sprop-parameter-sets` for H.264, `sprop-vps`, `sprop-sps` and `sprop-pps` for H.265,
    /// each a comma-separated list of base64. The inverse of ``add(sdpParameter:value:)``.
    public var sdpParameters: [(name: String, value: String)] {
        func list(_ types: ClosedRange<UInt8>) -> String {
            all.filter { types.contains($0.type) }.map { String(decoding: Base64.encode($0.bytes), as: UTF8.self) }
                .joined(separator: ",")
        }
        let named: [(String, ClosedRange<UInt8>)] =
            codec == .h264
            ? [("sprop-parameter-sets", 7...8)]
            : [("sprop-vps", 32...32), ("sprop-sps", 33...33), ("sprop-pps", 34...34)]
        return named.compactMap { name, types in
            let value = list(types)
            return value.isEmpty ? nil : (name, value)
        }
    }

    /// H.264's `profile-level-id`: the first SPS's profile, constraint flags and level, six hex digits.
    public var profileLevelID: String? {
        guard codec == .h264, let sps = all.first(where: { $0.type == 7 }), sps.bytes.count >= 4 else { return nil }
        let digits = Array("0123456789abcdef")
        return String(sps.bytes.dropFirst().prefix(3).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }
}
