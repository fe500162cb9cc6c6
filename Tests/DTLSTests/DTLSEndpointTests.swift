@_spi(SansIO) import DTLS
import RTP
import SRTP
import Testing

/// Two associations, server and client, handshake in memory (OpenSSL on both sides): they agree on the suite, each
/// sees the other's certificate fingerprint, and the keys each derives protect what the other reads (libsrtp2).
@Suite struct DTLSEndpointTests {
    /// Runs the handshake to its end, moving datagrams between the two; returns the flights exchanged.
    static func handshake(_ server: DTLSEndpoint, _ client: DTLSEndpoint) throws -> Int {
        var toServer = try client.start()
        var toClient: [[UInt8]] = []
        var flights = 0
        while !(server.isConnected && client.isConnected) {
            flights += 1
            guard flights < 20 else { throw TestFailure.noProgress }
            for datagram in toServer { toClient += try server.receive(datagram) }
            toServer = []
            for datagram in toClient { toServer += try client.receive(datagram) }
            toClient = []
        }
        return flights
    }

    enum TestFailure: Error { case noProgress }

    @Test func aHandshakeGivesBothSidesTheSameKeys() throws {
        let serverIdentity = try DTLSIdentity()
        let clientIdentity = try DTLSIdentity()
        #expect(serverIdentity.fingerprint != clientIdentity.fingerprint)
        let server = try DTLSEndpoint(identity: serverIdentity, role: .server)
        let client = try DTLSEndpoint(identity: clientIdentity, role: .client)
        let flights = try Self.handshake(server, client)
        #expect(flights <= 3)
        #expect(server.peerFingerprint == clientIdentity.fingerprint)
        #expect(client.peerFingerprint == serverIdentity.fingerprint)
        let serverKeys = try server.srtpKeys()
        let clientKeys = try client.srtpKeys()
        #expect(serverKeys.suite == .aeadAES128GCM)  // the first both offer
        #expect(serverKeys.local == clientKeys.remote && serverKeys.remote == clientKeys.local)
        #expect(serverKeys.local != serverKeys.remote)
        // What the server protects with its key, the client's receiver reads with the key it derived.
        let packet = RTPPacketBuilder(marker: true, timestamp: 9000, ssrc: 0x1234_5678, payload: [1, 2, 3, 4]).bytes()
        let protected = try SRTPSender(key: serverKeys.local).protect(packet)
        let receiver = try SRTPReceiver(key: clientKeys.remote)
        #expect(try receiver.unprotect(protected) == packet)
    }

    /// The suite follows the server's list: AES-CM-HMAC-SHA1-80 when that is all it takes.
    @Test func theSuiteIsOneBothOffer() throws {
        let server = try DTLSEndpoint(identity: try DTLSIdentity(), role: .server, suites: [.aesCM128HMACSHA1_80])
        let client = try DTLSEndpoint(identity: try DTLSIdentity(), role: .client)
        _ = try Self.handshake(server, client)
        #expect(try server.srtpKeys().suite == .aesCM128HMACSHA1_80)
    }

    /// Garbage, a truncated hello and a hello replayed after the handshake give an error or nothing, never a trap;
    /// keys are refused before the handshake.
    @Test func badDatagramsFailCleanly() async throws {
        let server = try DTLSEndpoint(identity: try DTLSIdentity(), role: .server)
        #expect(throws: DTLSError.self) { try server.srtpKeys() }
        #expect(server.retransmissionDelay == nil)
        let garbage = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        _ = try? server.receive([22, 0xFE, 0xFD] + garbage)
        let client = try DTLSEndpoint(identity: try DTLSIdentity(), role: .client)
        let hello = try client.start()
        #expect(!hello.isEmpty && client.retransmissionDelay != nil)
        let fresh = try DTLSEndpoint(identity: try DTLSIdentity(), role: .server)
        _ = try? fresh.receive(hello[0].prefix(hello[0].count / 2))
        // After the timer (200 ms), the same flight again.
        #expect(client.retransmissionDelay.map { $0 <= .milliseconds(200) } == true)
        try await Task.sleep(for: .milliseconds(250))
        #expect(try client.retransmit().count == hello.count)
    }

    @Test func fingerprintsReadAndWriteAsSDPHasThem() throws {
        let identity = try DTLSIdentity()
        let text = identity.sdpFingerprint
        #expect(text.hasPrefix("sha-256 ") && text.count == 8 + 32 * 3 - 1)
        #expect(DTLSIdentity.sha256Fingerprint(fromSDP: text) == identity.fingerprint)
        #expect(DTLSIdentity.sha256Fingerprint(fromSDP: text.lowercased()) == identity.fingerprint)
        #expect(DTLSIdentity.sha256Fingerprint(fromSDP: "sha-1 AB:CD") == nil)
        #expect(DTLSIdentity.sha256Fingerprint(fromSDP: "sha-256 " + String(repeating: "ZZ:", count: 31) + "ZZ") == nil)
    }
}
