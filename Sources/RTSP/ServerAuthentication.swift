import Crypto
import RTP

/// What a server asks of its clients before it serves them: Basic or Digest (RFC 2617 / RFC 7616 as RTSP uses
/// them, MD5) against a list of users. Sans I/O: it reads a request's `Authorization` and says whether it is
/// good, and what to challenge with when it is not.
public struct ServerAuthentication: Sendable {
    /// The schemes a server offers.
    public enum Scheme: Sendable, Hashable {
        /// Basic: the password in the clear (base64). Only over RTSPS or a network you trust.
        case basic
        /// Digest with MD5 (`qop=auth` and the RFC 2069 form both accepted).
        case digest
    }

    public let realm: String
    public let schemes: [Scheme]
    private let users: [String: String]
    /// The nonce a Digest answer must carry: random, one per server (per state machine).
    public let nonce: String

    /// Users by name and password; `schemes` in the order offered (Digest by default). The nonce is random
    /// unless given (a test's known vector).
    public init(realm: String = "swift-rtp", users: [Credentials], schemes: [Scheme] = [.digest], nonce: String? = nil) {
        self.realm = realm.filter { $0 != "\"" && !$0.isNewline }
        self.schemes = schemes.isEmpty ? [.digest] : schemes
        self.users = Dictionary(users.map { ($0.user, $0.password) }, uniquingKeysWith: { first, _ in first })
        self.nonce = nonce?.filter { $0 != "\"" } ?? Authenticator.randomNonce()
    }

    /// The `WWW-Authenticate` values of a 401: one per scheme.
    public var challenges: [String] {
        schemes.map { scheme in
            switch scheme {
            case .basic: "Basic realm=\"\(realm)\""
            case .digest: "Digest realm=\"\(realm)\", nonce=\"\(nonce)\", algorithm=MD5, qop=\"auth\""
            }
        }
    }

    /// The user `request` is authenticated as, or nil when its `Authorization` is missing, of a scheme not
    /// offered, for another realm or nonce, or wrong. `method` is the request's.
    public func user(of request: RTSPMessage, method: String) -> String? {
        guard let value = request.header("Authorization") else { return nil }
        let trimmed = value.trimmingCharacters()
        if trimmed.lowercased().hasPrefix("basic "), schemes.contains(.basic) {
            guard let decoded = Base64.decode(trimmed.dropFirst(6).trimmingCharacters()[...]),
                let text = String(validating: decoded, as: UTF8.self), let colon = text.firstIndex(of: ":")
            else { return nil }
            let user = String(text[..<colon])
            return users[user].map { Self.equal($0, String(text[text.index(after: colon)...])) } == true ? user : nil
        }
        guard schemes.contains(.digest), let answer = (try? AuthenticationChallenge.parse([trimmed]))?.first,
            answer.scheme == .digest
        else { return nil }
        let fields = answer.parameters
        guard let user = fields["username"], let password = users[user], fields["realm"] == realm,
            fields["nonce"] == nonce, let uri = fields["uri"], let response = fields["response"],
            (fields["algorithm"] ?? "MD5").uppercased() == "MD5"
        else { return nil }
        let ha1 = Authenticator.md5("\(user):\(realm):\(password)")
        let ha2 = Authenticator.md5("\(method):\(uri)")
        let expected: String
        if let qop = fields["qop"] {
            guard qop.lowercased() == "auth", let count = fields["nc"], let clientNonce = fields["cnonce"] else {
                return nil
            }
            expected = Authenticator.md5("\(ha1):\(nonce):\(count):\(clientNonce):auth:\(ha2)")
        } else {
            expected = Authenticator.md5("\(ha1):\(nonce):\(ha2)")
        }
        return Self.equal(expected, response.lowercased()) ? user : nil
    }

    /// Compares in time that does not depend on where the two differ.
    private static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
