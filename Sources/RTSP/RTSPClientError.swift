import RTP

/// Why an RTSP session failed, in words for the user. Never contains credentials.
public struct RTSPClientError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// 401 after trying the credentials (or with none): the user name or password is wrong; or 403: the server
        /// let them in but does not let them play this stream (``RTSPClientError/status`` says which).
        public static let unauthorized = Code(name: "unauthorized")
        /// The server answered with an error status (404 has ``notFound`` of its own).
        public static let serverError = Code(name: "serverError")
        /// The server did not answer in time.
        public static let timeout = Code(name: "timeout")
        /// The session description offers no track of the kinds asked for in a codec this library plays
        /// (H.264, H.265; G.711, L16, AAC, Opus), or the tracks selected are none of those offered.
        public static let noPlayableTrack = Code(name: "noPlayableTrack")
        /// The former name of ``noPlayableTrack``, from when only video was played: the same code.
        @available(*, deprecated, renamed: "noPlayableTrack")
        public static let noVideoTrack = noPlayableTrack
        /// 404 Not Found: the server has no stream at that path; check the URL (cameras name their streams
        /// differently: `/Streaming/Channels/101`, `/cam/realmonitor?channel=1&subtype=0`, `/live/ch0`...).
        public static let notFound = Code(name: "notFound")
        /// The server redirected to a URL this client will not follow (rtsps to rtsp).
        public static let refusedRedirect = Code(name: "refusedRedirect")
        /// The server broke the protocol (no Session header, no SDP...).
        public static let protocolViolation = Code(name: "protocolViolation")
        /// The TCP (or TLS) connection to the server could not be made.
        public static let connectionFailed = Code(name: "connectionFailed")
        /// The TLS handshake of `rtsps://` failed: an untrusted or mismatched certificate, or no common cipher.
        public static let tlsFailed = Code(name: "tlsFailed")
        /// The server closed the connection before the session ended.
        public static let connectionClosed = Code(name: "connectionClosed")
        /// While playing, no RTP or RTCP arrived within the inactivity timeout.
        public static let noMedia = Code(name: "noMedia")
        /// More redirects than the client follows.
        public static let tooManyRedirects = Code(name: "tooManyRedirects")
        /// Something this client does not do (yet), named in the reason.
        public static let unsupported = Code(name: "unsupported")
        /// The URL given cannot be played: not `rtsp://` or `rtsps://`, no host, a bad port, a blank or
        /// control character in it (the reason says which, never the credentials).
        public static let invalidURL = Code(name: "invalidURL")
        /// A call the session cannot take in its state (play before setup, pause when not playing) or with
        /// those arguments (a track that was not offered).
        public static let invalidCall = Code(name: "invalidCall")
        public var description: String { name }
    }

    public let code: Code
    public let reason: String
    /// The status code, for server errors.
    public let status: Int?

    /// `reason` is kept with its control characters escaped: it often quotes what a server sent.
    public init(_ code: Code, _ reason: String, status: Int? = nil) {
        self.code = code
        self.reason = reason.escapingControlCharacters
        self.status = status
    }

    public var description: String { reason }

}

extension RTSPClientError.Code {
    /// Matches an error by its code, so that a `catch` (or a `switch` over an error) needs no cast:
    ///
    /// ```swift
    /// do { … } catch RTSPClientError.Code.unauthorized { askForThePassword() }
    /// ```
    public static func ~= (code: Self, error: any Error) -> Bool { (error as? RTSPClientError)?.code == code }
}
