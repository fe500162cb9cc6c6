/// A way RTP reaches the receiver other than RTSP: a sender that wants a "hello" and heartbeats over
/// UDP, RTP inside an HTTP response, or one of the user's own. Each element of ``packets`` is one RTP
/// or RTCP packet (RTCP is told apart by its payload type, RFC 5761).
public protocol RTPTransport: Sendable {
    /// Connects (or binds) and starts receiving. The sequence ends when the sender ends or ``close()`` is
    /// called, and throws ``RTPTransportError`` when the transport fails.
    func start() async throws -> AsyncThrowingStream<[UInt8], any Error>
    /// Stops receiving and releases the sockets. Calling it again does nothing.
    func close() async
}

/// Why a custom transport failed, in words for the user.
public struct RTPTransportError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public static let connectionFailed = Code(name: "connectionFailed")
        /// The sender answered with something other than what the transport expects (an HTTP error, ...).
        public static let protocolViolation = Code(name: "protocolViolation")
        /// A length prefix of zero or beyond the limit.
        public static let invalidLength = Code(name: "invalidLength")
        /// The stream ended in the middle of a packet.
        public static let truncated = Code(name: "truncated")
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
