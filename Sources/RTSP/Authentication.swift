import RTP
import Crypto

/// A user name and password. Never printed: ``description``, ``debugDescription`` and `dump` show the
/// user only.
public struct Credentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable
{
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    public var description: String { "\(user):<password>" }
    public var debugDescription: String { "Credentials(user: \(user), password: <hidden>)" }
    public var customMirror: Mirror { Mirror(self, children: ["user": user], displayStyle: .struct) }
}

/// One challenge of a `WWW-Authenticate` header (RFC 7235), Basic or Digest (RFC 7616).
@_spi(SansIO) public struct AuthenticationChallenge: Sendable, Hashable {
    public enum Scheme: String, Sendable, Hashable {
        case basic, digest
    }

    /// Digest hash algorithms, weakest first.
    public enum Algorithm: String, Sendable, Hashable, Comparable {
        case md5 = "MD5"
        case md5Session = "MD5-SESS"
        case sha256 = "SHA-256"
        case sha256Session = "SHA-256-SESS"

        /// As an `Authorization` header writes it (RFC 7616: `MD5-sess`, `SHA-256-sess`).
        var headerValue: String {
            switch self {
            case .md5: "MD5"
            case .md5Session: "MD5-sess"
            case .sha256: "SHA-256"
            case .sha256Session: "SHA-256-sess"
            }
        }

        var strength: Int { self == .md5 || self == .md5Session ? 1 : 2 }
        var isSession: Bool { self == .md5Session || self == .sha256Session }
        public static func < (a: Algorithm, b: Algorithm) -> Bool { a.strength < b.strength }
    }

    public var scheme: Scheme
    /// All parameters, names lowercased, values unquoted.
    public var parameters: [String: String]

    public var realm: String? { parameters["realm"] }
    public var nonce: String? { parameters["nonce"] }
    public var opaque: String? { parameters["opaque"] }
    /// `stale=true`: the nonce expired, the credentials were right; retry once with the new nonce.
    public var isStale: Bool { parameters["stale"]?.lowercased() == "true" }
    /// The algorithm (MD5 when absent), or nil for one this library does not know.
    public var algorithm: Algorithm? { Algorithm(rawValue: (parameters["algorithm"] ?? "MD5").uppercased()) }
    /// The qop options offered.
    public var qopOptions: [String] {
        (parameters["qop"] ?? "").split(separator: ",").map { $0.trimmingCharacters().lowercased() }.filter {
            !$0.isEmpty
        }
    }

    /// Parses every challenge of the given `WWW-Authenticate` values (a header may hold several, and a
    /// response may carry several headers). Unknown schemes are skipped.
    ///
    /// - Throws: ``RTSPError`` for a value that is not challenges (an unterminated quote, a parameter
    ///   without a name).
    public static func parse(_ values: [String]) throws(RTSPError) -> [AuthenticationChallenge] {
        var challenges: [AuthenticationChallenge] = []
        for value in values {
            var current: AuthenticationChallenge?
            for item in try splitItems(value) {
                // An item that starts with a token and a space opens a new challenge: "Digest realm=x".
                var rest = Substring(item)
                if let space = item.firstIndex(of: " "), !item[..<space].contains("=" as Character) {
                    if let current { challenges.append(current) }
                    let name = item[..<space].lowercased()
                    current = Scheme(rawValue: name).map { AuthenticationChallenge(scheme: $0, parameters: [:]) }
                    rest = item[item.index(after: space)...]
                } else if !item.contains("=" as Character) {
                    if let current { challenges.append(current) }
                    current = Scheme(rawValue: item.lowercased()).map {
                        AuthenticationChallenge(scheme: $0, parameters: [:])
                    }
                    continue
                }
                let parameter = rest.trimmingCharacters()
                guard !parameter.isEmpty else { continue }
                guard let equals = parameter.firstIndex(of: "="), equals != parameter.startIndex else {
                    throw RTSPError(
                        .malformedMessage, "WWW-Authenticate parameter without a name: \(parameter.prefix(40))")
                }
                var value = String(parameter[parameter.index(after: equals)...]).trimmingCharacters()
                if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 {
                    value = String(value.dropFirst().dropLast()).replacingEscapes()
                }
                current?.parameters[parameter[..<equals].trimmingCharacters().lowercased()] = value
            }
            if let current { challenges.append(current) }
        }
        return challenges
    }

    /// The challenge to answer: Digest over Basic, SHA-256 over MD5; challenges with an unknown algorithm
    /// are left out.
    public static func strongest(_ challenges: [AuthenticationChallenge]) -> AuthenticationChallenge? {
        let usable = challenges.filter { $0.scheme == .basic || ($0.algorithm != nil && $0.nonce != nil) }
        return usable.max { a, b in
            if a.scheme != b.scheme { return a.scheme == .basic }
            return (a.algorithm ?? .md5) < (b.algorithm ?? .md5)
        }
    }

    /// Splits at commas outside quoted strings.
    static func splitItems(_ value: String) throws(RTSPError) -> [String] {
        var items: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in value {
            if escaped {
                current.append(character)
                escaped = false
                continue
            }
            switch character {
            case "\\" where quoted:
                current.append(character)
                escaped = true
            case "\"":
                quoted.toggle()
                current.append(character)
            case "," where !quoted:
                items.append(current.trimmingCharacters())
                current = ""
            default:
                current.append(character)
            }
        }
        guard !quoted else { throw RTSPError(.malformedMessage, "WWW-Authenticate has an unterminated quoted string") }
        items.append(current.trimmingCharacters())
        return items.filter { !$0.isEmpty }
    }
}

extension String {
    func replacingEscapes() -> String {
        var out = ""
        var escaped = false
        for c in self {
            if escaped || c != "\\" {
                out.append(c)
                escaped = false
            } else {
                escaped = true
            }
        }
        return out
    }
}

/// Answers authentication challenges: the `Authorization` header value for a request.
@_spi(SansIO) public struct Authenticator: Sendable {
    public let challenge: AuthenticationChallenge
    public let credentials: Credentials
    private var nonceCount: UInt32 = 0

    public init(challenge: AuthenticationChallenge, credentials: Credentials) {
        self.challenge = challenge
        self.credentials = credentials
    }

    /// The `Authorization` value for `method` on `uri`. `cnonce` is for tests; by default a random one.
    public mutating func authorization(method: String, uri: String, cnonce: String? = nil) -> String {
        switch challenge.scheme {
        case .basic:
            return "Basic " + Self.base64(Array("\(credentials.user):\(credentials.password)".utf8))
        case .digest:
            let algorithm = challenge.algorithm ?? .md5
            let realm = challenge.realm ?? ""
            let nonce = challenge.nonce ?? ""
            let hash: (String) -> String = { algorithm.strength == 2 ? Self.sha256($0) : Self.md5($0) }
            var ha1 = hash("\(credentials.user):\(realm):\(credentials.password)")
            let clientNonce = cnonce ?? Self.randomNonce()
            if algorithm.isSession { ha1 = hash("\(ha1):\(nonce):\(clientNonce)") }
            let ha2 = hash("\(method):\(uri)")
            var fields = [
                "username=\"\(credentials.user)\"", "realm=\"\(realm)\"", "nonce=\"\(nonce)\"", "uri=\"\(uri)\"",
            ]
            let response: String
            if challenge.qopOptions.contains("auth") {
                nonceCount &+= 1
                let nc = String(nonceCount, radix: 16)
                let count = String(repeating: "0", count: 8 - nc.count) + nc
                response = hash("\(ha1):\(nonce):\(count):\(clientNonce):auth:\(ha2)")
                fields += [
                    "response=\"\(response)\"",
                    "algorithm=\(algorithm.headerValue)", "qop=auth", "nc=\(count)",
                    "cnonce=\"\(clientNonce)\"",
                ]
            } else {
                response = hash("\(ha1):\(nonce):\(ha2)")
                fields += [
                    "response=\"\(response)\"",
                    "algorithm=\(algorithm.headerValue)",
                ]
            }
            if let opaque = challenge.opaque { fields.append("opaque=\"\(opaque)\"") }
            return "Digest " + fields.joined(separator: ", ")
        }
    }

    static func md5(_ text: String) -> String { hex(Array(Insecure.MD5.hash(data: Array(text.utf8)))) }
    static func sha256(_ text: String) -> String { hex(Array(SHA256.hash(data: Array(text.utf8)))) }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static func randomNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func base64(_ bytes: [UInt8]) -> String {
        String(decoding: Base64.encode(bytes), as: UTF8.self)
    }
}
