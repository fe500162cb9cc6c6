/// An RTP or RTCP packet that could not be parsed, with the reason.
///
/// Errors are values with a ``Code`` and the numbers that explain it, so that building one on a hot path
/// costs no allocation; ``description`` turns them into a sentence.
public struct RTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem the packet has. New codes may be added in later versions.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Base: Hashable, Sendable {
            case tooShort, unsupportedVersion, csrcListTruncated, extensionTruncated, invalidPadding
            case rtcpTruncated, rtcpLengthExceedsData, rtcpBodyTooShort
        }
        let base: Base

        /// Fewer bytes than a fixed header needs.
        public static let tooShort = Code(base: .tooShort)
        /// The version field is not 2.
        public static let unsupportedVersion = Code(base: .unsupportedVersion)
        /// The CSRC count points past the end of the packet.
        public static let csrcListTruncated = Code(base: .csrcListTruncated)
        /// The header extension's length points past the end of the packet.
        public static let extensionTruncated = Code(base: .extensionTruncated)
        /// The padding count is zero or larger than the payload that holds it.
        public static let invalidPadding = Code(base: .invalidPadding)
        /// An RTCP packet shorter than its 4-byte common header.
        public static let rtcpTruncated = Code(base: .rtcpTruncated)
        /// An RTCP length field that points past the end of the compound packet.
        public static let rtcpLengthExceedsData = Code(base: .rtcpLengthExceedsData)
        /// An RTCP packet whose body is too short for what its header announces (report blocks, items).
        public static let rtcpBodyTooShort = Code(base: .rtcpBodyTooShort)

        public var description: String { "\(base)" }
    }

    /// What kind of problem the packet has.
    public let code: Code
    /// The number the check failed on (a length, a version or a count; see ``description``).
    public let value: Int
    /// The limit it was checked against (bytes available, for most codes).
    public let limit: Int

    @inlinable
    init(_ code: Code, value: Int = 0, limit: Int = 0) {
        self.code = code
        self.value = value
        self.limit = limit
    }

    public var description: String {
        switch code.base {
        case .tooShort:
            return "RTP packet too short: \(value) bytes, a header needs at least \(limit)"
        case .unsupportedVersion:
            return "not an RTP packet: version \(value), expected 2 (is this port carrying another protocol?)"
        case .csrcListTruncated:
            return "RTP CSRC list of \(value) bytes runs past the end of the \(limit)-byte packet"
        case .extensionTruncated:
            return "RTP header extension of \(value) bytes runs past the end of the packet (\(limit) bytes left)"
        case .invalidPadding:
            return "RTP padding count \(value) is invalid: \(limit) bytes follow the header"
        case .rtcpTruncated:
            return "RTCP packet too short: \(value) bytes left, a header needs 4"
        case .rtcpLengthExceedsData:
            return "RTCP length field says \(value) bytes but only \(limit) remain in the compound packet"
        case .rtcpBodyTooShort:
            return "RTCP packet body too short: its header announces \(value) bytes, it holds \(limit)"
        }
    }
}
