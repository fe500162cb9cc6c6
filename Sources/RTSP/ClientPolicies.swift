/// Which request keeps a client's session alive: GET_PARAMETER when the server's `Public` lists it, else
/// OPTIONS; and, each time a camera refuses the one in use or leaves it unanswered, the next of
/// ``methods`` (RFC 2326 names GET_PARAMETER with no body and OPTIONS; some cameras want SET_PARAMETER).
struct KeepalivePolicy: Sendable, Equatable {
    /// The keepalive methods, in the order tried.
    static let methods: [RTSPMethod] = [.getParameter, .options, .setParameter]

    /// The method of the next keepalive.
    private(set) var method = RTSPMethod.options

    /// OPTIONS was answered with these methods in `Public`.
    mutating func serverSupports(_ publicMethods: Set<RTSPMethod>) {
        method = publicMethods.contains(.getParameter) ? .getParameter : .options
    }

    /// The server refused a keepalive sent with `refused`, or did not answer it: the next method is tried
    /// next time. Never an end of the session (it lives by its media; the inactivity timeout watches that).
    mutating func refused(_ refused: RTSPMethod) {
        let methods = Self.methods
        method = methods[((methods.firstIndex(of: refused) ?? 0) + 1) % methods.count]
    }
}

/// Answers a server's authentication challenges with the user's credentials: the first 401 asks for them; a
/// second one says they are wrong, unless it says the nonce went stale (one more try). An answered request
/// starts the count again.
struct ClientAuthentication: Sendable {
    private var authenticator: Authenticator?
    private var challenges = 0

    /// A 401 with `challenge`: whether to send the request again with the credentials (false: they were
    /// refused, and the session fails or, for a stale session, gives up on it).
    mutating func challenged(_ challenge: AuthenticationChallenge, credentials: Credentials) -> Bool {
        challenges += 1
        guard challenges == 1 || (challenge.isStale && challenges == 2) else { return false }
        authenticator = Authenticator(challenge: challenge, credentials: credentials)
        return true
    }

    /// A request was answered (not with a 401): the next challenge is a first one again.
    mutating func answered() { challenges = 0 }

    /// The `Authorization` of `request` once a challenge has been answered; nil before.
    mutating func authorization(for request: RTSPRequest) -> String? {
        guard var authenticator else { return nil }
        defer { self.authenticator = authenticator }  // Digest counts its nonce's uses
        return authenticator.authorization(method: request.method.name, uri: request.url.description)
    }
}
