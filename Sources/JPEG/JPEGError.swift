/// A problem with an RTP JPEG payload (RFC 2435): a header that does not read, a payload type or size this
/// library does not take, fragments that do not fit together.
public struct JPEGError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem. New codes may be added in later versions.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// A payload too short for its headers, or whose headers contradict each other.
        public static let malformedPayload = Code(name: "malformedPayload")
        /// A type, interlacing or table precision RFC 2435 allows but this library does not take.
        public static let unsupportedPayload = Code(name: "unsupportedPayload")
        /// A picture whose fragments did not all come, or came past the size limit: dropped, never spliced.
        public static let incompletePicture = Code(name: "incompletePicture")
        /// A picture the packetizer cannot send as RFC 2435 (progressive, 16-bit tables, another sampling).
        public static let unsupportedPicture = Code(name: "unsupportedPicture")
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
