import Testing

@_spi(SansIO) @testable import RTSP

/// The client machine's small policies, without a machine around them.
struct ClientPoliciesTests {
    @Test func theKeepaliveIsWhatTheServerListsThenTheNextOnEachRefusal() {
        var keepalive = KeepalivePolicy()
        #expect(keepalive.method == .options)  // before OPTIONS is answered
        keepalive.serverSupports([.options, .describe, .setup, .play, .teardown, .getParameter])
        #expect(keepalive.method == .getParameter)
        keepalive.refused(.getParameter)  // GW4089IP: never answered
        #expect(keepalive.method == .options)
        keepalive.refused(.options)
        #expect(keepalive.method == .setParameter)
        keepalive.refused(.setParameter)  // round again: one of them worked before the camera changed its mind
        #expect(keepalive.method == .getParameter)
        keepalive.serverSupports([.options, .describe])
        #expect(keepalive.method == .options)
    }

    static let credentials = Credentials(user: "Mufasa", password: "Circle of Life")
    static func challenge(stale: Bool) throws -> AuthenticationChallenge {
        let header = "Digest realm=\"cam\", nonce=\"abc\", qop=\"auth\"" + (stale ? ", stale=true" : "")
        return try #require(try AuthenticationChallenge.parse([header]).first)
    }

    @Test func theCredentialsAreTriedOnceAndOnceMoreForAStaleNonce() throws {
        var authentication = ClientAuthentication()
        let request = RTSPRequest(method: .describe, url: try RTSPURL("rtsp://cam/stream"))
        #expect(authentication.authorization(for: request) == nil)  // sent without, until challenged
        #expect(authentication.challenged(try Self.challenge(stale: false), credentials: Self.credentials))
        let first = authentication.authorization(for: request) ?? ""
        #expect(first.hasPrefix("Digest username=\"Mufasa\"") && first.contains("nc=00000001"))
        #expect(authentication.authorization(for: request)?.contains("nc=00000002") == true)
        // Refused: the credentials are wrong, unless the nonce went stale (once).
        #expect(!authentication.challenged(try Self.challenge(stale: false), credentials: Self.credentials))
        var stale = ClientAuthentication()
        #expect(stale.challenged(try Self.challenge(stale: false), credentials: Self.credentials))
        #expect(stale.challenged(try Self.challenge(stale: true), credentials: Self.credentials))
        #expect(!stale.challenged(try Self.challenge(stale: true), credentials: Self.credentials))
        // An answer starts the count again: a later request's 401 (a new nonce) is answered.
        stale.answered()
        #expect(stale.challenged(try Self.challenge(stale: false), credentials: Self.credentials))
        #expect(stale.authorization(for: request)?.contains("nc=00000001") == true)
    }
}
