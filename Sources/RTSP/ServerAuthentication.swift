import Crypto
import RTP

/// What a server asks of its clients before it serves them: Basic or Digest (RFC 2617 / RFC 7616 as RTSP uses
/// them, MD5) against a list of users. Sans I/O: it reads a request's `Authorization` and says whether it is
/// good, and what to challenge with when it is not.
///
/// Digest is checked as RFC 7616 means it: each connection has nonces of its own (``DigestNonces``), which live
/// ``nonceLifetime`` (a right answer to an older one is told `stale=true`, and the client answers the new nonce
/// without asking its user); the `uri` an answer hashes must be the request's; a nonce count (`nc`) must rise, so
/// an answer cannot be played again. A header captured on one connection opens nothing on another.
public struct ServerAuthentication: Sendable {
    /// The schemes a server offers.
    public enum Scheme: Sendable, Hashable {
        /// Basic: the password in the clear (base64). Only over RTSPS or a network you trust.
        case basic
        /// Digest with MD5 (`qop=auth` and the RFC 2069 form both accepted).
        case digest
    }

    /// What a request's `Authorization` proved.
    package enum Verdict: Sendable, Hashable {
        /// A user's right answer.
        case authenticated(user: String)
        /// No `Authorization`, or one of a scheme not offered: challenge (not a wrong guess).
        case missing
        /// A right Digest answer to a nonce this connection's is not (expired, or never given on it): challenge
        /// again with `stale=true`. `user` when the nonce was this connection's own (it only expired).
        case stale(user: String?)
        /// A wrong password, user, realm or `uri`, a nonce count that did not rise, a malformed answer: a guess.
        case wrong
    }

    public let realm: String
    public let schemes: [Scheme]
    private let users: [String: String]
    /// How long a Digest nonce is good for. Default 5 minutes.
    public var nonceLifetime: Duration = .seconds(300)

    /// Users by name and password; `schemes` in the order offered (Digest by default).
    public init(realm: String = "swift-rtp", users: [Credentials], schemes: [Scheme] = [.digest]) {
        self.realm = realm.filter { $0 != "\"" && !$0.isNewline }
        self.schemes = schemes.isEmpty ? [.digest] : schemes
        self.users = Dictionary(users.map { ($0.user, $0.password) }, uniquingKeysWith: { first, _ in first })
    }

    /// The `WWW-Authenticate` values of a 401, one per scheme; Digest's with `nonce` (and `stale=true` when the
    /// client's answer was right but its nonce stale).
    package func challenges(nonce: String, stale: Bool = false) -> [String] {
        schemes.map { scheme in
            switch scheme {
            case .basic: "Basic realm=\"\(realm)\""
            case .digest:
                "Digest realm=\"\(realm)\", nonce=\"\(nonce)\", algorithm=MD5, qop=\"auth\""
                    + (stale ? ", stale=true" : "")
            }
        }
    }

    /// What `request`'s `Authorization` proves. `method` and `uri` are the request's (a Digest answer must hash
    /// both); `nonces` are the connection's, whose counts a right answer advances.
    package func verify(
        _ request: RTSPMessage, method: String, uri: String, nonces: inout DigestNonces, now: ArrivalTime
    )
        -> Verdict
    {
        guard let value = request.header("Authorization") else { return .missing }
        let trimmed = value.trimmingCharacters()
        if trimmed.lowercased().hasPrefix("basic ") {
            guard schemes.contains(.basic) else { return .missing }
            return basicUser(trimmed.dropFirst(6).trimmingCharacters()).map { .authenticated(user: $0) } ?? .wrong
        }
        guard trimmed.lowercased().hasPrefix("digest"), schemes.contains(.digest) else { return .missing }
        guard let answer = (try? AuthenticationChallenge.parse([trimmed]))?.first, answer.scheme == .digest else {
            return .wrong
        }
        let fields = answer.parameters
        guard let user = fields["username"], let password = users[user], fields["realm"] == realm,
            let nonce = fields["nonce"], let answeredURI = fields["uri"], let response = fields["response"],
            (fields["algorithm"] ?? "MD5").uppercased() == "MD5", Self.sameResource(answeredURI, uri)
        else { return .wrong }
        let ha1 = Authenticator.md5("\(user):\(realm):\(password)")
        let ha2 = Authenticator.md5("\(method):\(answeredURI)")
        let expected: String
        var count: UInt32?
        if let qop = fields["qop"] {
            guard qop.lowercased() == "auth", let nc = fields["nc"], nc.utf8.count == 8,
                let parsed = UInt32(nc, radix: 16),
                let clientNonce = fields["cnonce"]
            else { return .wrong }
            count = parsed
            expected = Authenticator.md5("\(ha1):\(nonce):\(nc):\(clientNonce):auth:\(ha2)")
        } else {
            expected = Authenticator.md5("\(ha1):\(nonce):\(ha2)")
        }
        guard Self.equal(expected, response.lowercased()) else { return .wrong }
        switch nonces.use(nonce, count: count, now: now, lifetime: nonceLifetime) {
        case .fresh: return .authenticated(user: user)
        case .expired: return .stale(user: user)
        case .unknown: return .stale(user: nil)
        case .replayed: return .wrong
        }
    }

    /// The user of a Basic answer (`user:password` in base64) whose password is right.
    private func basicUser(_ encoded: String) -> String? {
        guard let decoded = Base64.decode(encoded[...]), let text = String(validating: decoded, as: UTF8.self),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        let user = String(text[..<colon])
        return users[user].map { Self.equal($0, String(text[text.index(after: colon)...])) } == true ? user : nil
    }

    /// Whether a Digest answer's `uri` names the request's resource: the same text, or the same path (clients
    /// write the absolute URL, or its path alone as HTTP does). Another path is refused: an answer captured for
    /// one presentation opens no other.
    static func sameResource(_ answered: String, _ requested: String) -> Bool {
        if answered == requested { return true }
        func path(_ text: String) -> String {
            if text.hasPrefix("/") || text == "*" { return text }
            return (try? RTSPURL(text))?.path ?? "\u{0}"
        }
        return path(answered) == path(requested)
    }

    /// Compares in time that does not depend on where the two differ.
    private static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The Digest nonces one connection was given (RFC 7616), each with when it was issued and the highest nonce
/// count answered with it. Bounded: the newest ``maxKept`` are kept.
package struct DigestNonces: Sendable {
    struct Issued: Sendable {
        let nonce: String
        let issued: ArrivalTime
        var highestCount: UInt32?
    }

    /// What a nonce answered with is to this connection.
    enum Use: Sendable {
        case fresh, expired, unknown, replayed
    }

    /// How many nonces are kept (older ones are unknown from then on).
    package let maxKept: Int
    private var issued: [Issued] = []

    package init(maxKept: Int = 4) {
        self.maxKept = max(1, maxKept)
    }

    /// The nonce to challenge with at `now`: the newest, or a new random one when there is none or it has lived
    /// `lifetime`.
    package mutating func current(now: ArrivalTime, lifetime: Duration) -> String {
        if let newest = issued.last, now - newest.issued < lifetime { return newest.nonce }
        return issue(Authenticator.randomNonce(), now: now)
    }

    /// Gives `nonce` from `now` on (a random one is what ``current(now:lifetime:)`` issues; a known one is for a
    /// test's vector).
    @discardableResult
    package mutating func issue(_ nonce: String, now: ArrivalTime) -> String {
        issued.append(Issued(nonce: nonce, issued: now))
        if issued.count > maxKept { issued.removeFirst(issued.count - maxKept) }
        return nonce
    }

    /// Notes a right answer to `nonce` with nonce count `count` (nil: the RFC 2069 form, which has none).
    mutating func use(_ nonce: String, count: UInt32?, now: ArrivalTime, lifetime: Duration) -> Use {
        guard let index = issued.firstIndex(where: { $0.nonce == nonce }) else { return .unknown }
        guard now - issued[index].issued < lifetime else { return .expired }
        if let count {
            if let highest = issued[index].highestCount, count <= highest { return .replayed }
            issued[index].highestCount = count
        }
        return .fresh
    }
}
