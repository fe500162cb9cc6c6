import RTP

/// A byte stream that is not valid RTSP, with the reason.
public struct RTSPError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public static let malformedMessage = Code(name: "malformedMessage")
        public static let limitExceeded = Code(name: "limitExceeded")
        public var description: String { name }
    }

    public let code: Code
    public let reason: String

    /// `reason` is kept with its control characters escaped: it often quotes what a server sent.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason.escapingControlCharacters
    }

    public var description: String { reason }
}
