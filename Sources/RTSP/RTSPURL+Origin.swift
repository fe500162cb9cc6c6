extension RTSPURL {
    /// Where a URL's requests go: its scheme, host and port, as RFC 6454 defines a web origin.
    ///
    /// Credentials are given for one origin and are sent to no other: a redirect to another host, another
    /// port or another scheme continues without them (a camera is untrusted input, and so is its `Location`).
    /// Host names compare without regard to case; a name and the address it resolves to are different
    /// origins, since the client cannot know that the user meant both.
    public struct Origin: Sendable, Hashable, CustomStringConvertible {
        public let isSecure: Bool
        /// The host, lowercased.
        public let host: String
        public let port: Int

        public init(isSecure: Bool, host: String, port: Int) {
            self.isSecure = isSecure
            self.host = host.lowercased()
            self.port = port
        }

        /// `rtsp://host:port` (IPv6 addresses in brackets); it holds no credentials.
        public var description: String {
            let hostText = host.contains(":" as Character) ? "[\(host)]" : host
            return (isSecure ? "rtsps://" : "rtsp://") + hostText + ":\(port)"
        }
    }

    /// This URL's scheme, host and port.
    public var origin: Origin { Origin(isSecure: isSecure, host: host, port: port) }
}

/// The user's credentials, bound to the origin they were given for.
///
/// ``credentials(for:)`` hands them out for a URL of that origin only. For any other URL it gives what
/// that URL itself carries (`rtsp://user:pass@other/…`, as a redirect's `Location` may), if anything.
package struct ScopedCredentials: Sendable, Hashable, CustomStringConvertible {
    public let credentials: Credentials
    public let origin: RTSPURL.Origin

    public init(_ credentials: Credentials, for origin: RTSPURL.Origin) {
        self.credentials = credentials
        self.origin = origin
    }

    /// The credentials to use for requests to `url`.
    public func credentials(for url: RTSPURL) -> Credentials? {
        url.origin == origin ? credentials : url.credentials
    }

    /// The user and the origin, never the password.
    public var description: String { "\(credentials) for \(origin)" }
}
