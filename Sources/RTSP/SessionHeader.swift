/// The Session header (RFC 2326 section 12.37): the session id, and the timeout after which the server
/// forgets an idle session (60 s when the server does not say).
@_spi(SansIO) public struct SessionHeader: Sendable, Hashable {
    public static let defaultTimeout = Duration.seconds(60)

    public var id: String
    public var timeout: Duration

    /// A session's header: its id and the timeout the server announces.
    public init(id: String, timeout: Duration = Self.defaultTimeout) {
        self.id = id
        self.timeout = timeout
    }

    /// Reads a header's value; nil without an id.
    public init?(_ value: String) {
        let parts = value.split(separator: ";").map { $0.trimmingCharacters() }
        guard let id = parts.first, !id.isEmpty else { return nil }
        self.id = id
        timeout = Self.defaultTimeout
        // Cameras write `; timeout = 60`, `;timeout=60;`, `;Timeout=60`: spaces and case are theirs.
        for part in parts.dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters() }
            guard pair.count == 2, pair[0].lowercased() == "timeout" else { continue }
            if let seconds = Int(pair[1]), seconds > 0, seconds <= 86_400 { timeout = .seconds(seconds) }
        }
    }

    /// The value as a server answers it: `id;timeout=N` (whole seconds). A client's requests name the ``id``
    /// alone.
    public func serialized() -> String {
        "\(id.filter { $0 != ";" && $0 != "," && !$0.isWhitespace });timeout=\(timeout.components.seconds)"
    }

    /// When to send a keepalive: half the timeout, so that one lost keepalive does not end the session.
    public var keepaliveInterval: Duration { timeout / 2 }
}
