import Testing

@_spi(SansIO) @testable import RTSP

/// Expected values are the examples published in RFC 7616 section 3.9.1, RFC 2617 section 3.5 and
/// RFC 7617 section 2. RFC 7616 has no example of the -sess algorithms; theirs come from Python's hashlib
/// on the same inputs, with RFC 7616's formula (HA1 = H(H(user:realm:password):nonce:cnonce)), by a script
/// that also gives the RFC's two published values:
///
///     import hashlib
///     def H(a, s): return (hashlib.md5 if a.startswith("MD5") else hashlib.sha256)(s.encode()).hexdigest()
///     u, r, p = "Mufasa", "http-auth@example.org", "Circle of Life"
///     n, c = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
///     for a in ["MD5", "SHA-256", "MD5-sess", "SHA-256-sess"]:
///         ha1 = H(a, f"{u}:{r}:{p}")
///         if a.endswith("-sess"): ha1 = H(a, f"{ha1}:{n}:{c}")
///         print(a, H(a, f"{ha1}:{n}:00000001:{c}:auth:{H(a, 'GET:/dir/index.html')}"))
@Suite struct AuthenticationTests {
    static func rfc7616Challenge(algorithm: String) -> String {
        """
        Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=\(algorithm), \
        nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
        """
    }
    static let mufasa = Credentials(user: "Mufasa", password: "Circle of Life")
    static let cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"

    static func response(_ authorization: String) -> String? {
        guard let range = authorization.range(of: "response=\"") else { return nil }
        return String(authorization[range.upperBound...].prefix(while: { $0 != "\"" }))
    }

    @Test(arguments: [
        ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
        ("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
        ("MD5-sess", "e783283f46242139c486a698fec7211d"),
        ("SHA-256-sess", "2fd51b3a77ad75bad6afad6003e818d767133c46d9e2749e7f5232ae1ea3efd7"),
    ])
    func digestMatchesRFC7616(algorithm: String, expected: String) throws {
        let header = Self.rfc7616Challenge(algorithm: algorithm)
        let challenge = try #require(try AuthenticationChallenge.parse([header]).first)
        #expect(challenge.scheme == .digest)
        #expect(challenge.qopOptions == ["auth", "auth-int"])
        var authenticator = Authenticator(challenge: challenge, credentials: Self.mufasa)
        let value = authenticator.authorization(method: "GET", uri: "/dir/index.html", cnonce: Self.cnonce)
        #expect(Self.response(value) == expected)
        #expect(value.contains("algorithm=\(algorithm),"))
        #expect(value.contains("nc=00000001"))
        #expect(value.contains("opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""))
        #expect(!value.contains("Circle of Life"))
        let second = authenticator.authorization(method: "GET", uri: "/dir/index.html", cnonce: Self.cnonce)
        #expect(second.contains("nc=00000002"))
    }

    @Test func digestMatchesRFC2617() throws {
        let header = """
            Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", \
            opaque="5ccc069c403ebaf9f0171e9517f40e41"
            """
        let challenge = try #require(try AuthenticationChallenge.parse([header]).first)
        var authenticator = Authenticator(
            challenge: challenge, credentials: Credentials(user: "Mufasa", password: "Circle Of Life"))
        let value = authenticator.authorization(method: "GET", uri: "/dir/index.html", cnonce: "0a4f113b")
        #expect(Self.response(value) == "6629fae49393a05397450978507c4ef1")
    }

    @Test func basicMatchesRFC7617() throws {
        let challenge = try #require(try AuthenticationChallenge.parse(["Basic realm=\"WallyWorld\""]).first)
        var authenticator = Authenticator(
            challenge: challenge, credentials: Credentials(user: "Aladdin", password: "open sesame"))
        #expect(
            authenticator.authorization(method: "DESCRIBE", uri: "rtsp://x/") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    @Test func severalChallengesAnyOrderTheStrongestWins() throws {
        let challenges = try AuthenticationChallenge.parse([
            "Basic realm=\"cam\", Digest nonce=\"n1\", realm=\"cam\"",
            "Digest algorithm=SHA-256, realm=\"cam\", nonce=\"n2\", stale=TRUE",
        ])
        #expect(challenges.map(\.scheme) == [.basic, .digest, .digest])
        let best = try #require(AuthenticationChallenge.strongest(challenges))
        #expect(best.algorithm == .sha256)
        #expect(best.nonce == "n2")
        #expect(best.isStale)
    }

    @Test func withoutQopTheOlderDigestFormIsUsed() throws {
        let challenge = try #require(try AuthenticationChallenge.parse(["Digest realm=\"r\", nonce=\"n\""]).first)
        var authenticator = Authenticator(challenge: challenge, credentials: Credentials(user: "u", password: "p"))
        let value = authenticator.authorization(method: "DESCRIBE", uri: "rtsp://cam/s")
        // MD5(MD5("u:r:p"):n:MD5("DESCRIBE:rtsp://cam/s")), computed by the RFC 2069 formula.
        let ha1 = Authenticator.md5("u:r:p")
        let ha2 = Authenticator.md5("DESCRIBE:rtsp://cam/s")
        #expect(Self.response(value) == Authenticator.md5("\(ha1):n:\(ha2)"))
        #expect(!value.contains("qop="))
    }

    @Test func malformedHeadersAreErrorsAndUnknownSchemesAreSkipped() throws {
        #expect(throws: RTSPError.self) { try AuthenticationChallenge.parse(["Digest realm=\"unterminated"]) }
        #expect(throws: RTSPError.self) { try AuthenticationChallenge.parse(["Digest =value"]) }
        #expect(try AuthenticationChallenge.parse(["Bearer realm=\"x\""]).isEmpty)
        #expect(
            AuthenticationChallenge.strongest(
                try AuthenticationChallenge.parse(["Digest realm=\"x\", algorithm=SHA-512-256, nonce=\"n\""])) == nil)
    }

    @Test func credentialsNeverPrintThePassword() {
        let credentials = Credentials(user: "admin", password: "hunter2")
        #expect("\(credentials)" == "admin:<password>")
        #expect(!String(describing: credentials).contains("hunter2"))
        #expect(!String(reflecting: credentials).contains("hunter2"))
        var dumped = ""
        dump(credentials, to: &dumped)
        #expect(!dumped.contains("hunter2"))
    }
}
