/// Why SRTP could not be set up or a packet could not be unprotected. Never contains key bytes.
public struct SRTPError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The key is not base64 or has the wrong length for its suite.
        public static let invalidKey = Code(name: "invalidKey")
        public static let unsupportedSuite = Code(name: "unsupportedSuite")
        /// The packet's authentication tag does not match: changed in transit, or another key.
        public static let authenticationFailed = Code(name: "authenticationFailed")
        /// A packet already received (or too old for the replay window).
        public static let replayed = Code(name: "replayed")
        /// Too short to be SRTP / SRTCP, or libsrtp refused it for another reason (named).
        public static let malformed = Code(name: "malformed")
        /// libsrtp could not be initialised or a session created.
        public static let library = Code(name: "library")
        public var description: String { name }
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
