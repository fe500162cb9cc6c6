/// A problem with H.264/H.265 data: a parameter set that cannot be parsed, an SDP parameter that is
/// wrong, or a packetization this library does not take.
public struct H26xError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem. New codes may be added in later versions.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// An SPS or PPS that cannot be parsed or holds impossible values.
        public static let invalidParameterSet = Code(name: "invalidParameterSet")
        /// An SDP `fmtp` parameter (sprop-parameter-sets, sprop-vps/sps/pps, ...) that cannot be decoded.
        public static let invalidSDPParameter = Code(name: "invalidSDPParameter")
        /// A payload structure the depacketizer does not accept.
        public static let unsupportedPacketization = Code(name: "unsupportedPacketization")
        public var description: String { name }
    }

    public let code: Code
    /// What happened and what to try.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
