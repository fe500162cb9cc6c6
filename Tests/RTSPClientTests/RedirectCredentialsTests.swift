@_spi(SansIO) import RTSP
import RTSPClient
import TestSupport
import Testing

/// Credentials go only to the origin (scheme, host, port) they were given for: a camera's redirect is
/// untrusted input, and must not be a way to collect the password.
@Suite struct RedirectCredentialsTests {
    static let password = "s3cret-Pa55"
    static let user = "admin"
    /// How Basic would carry them, the form a leak would take on the wire: `printf admin:s3cret-Pa55 | base64`.
    static let basicToken = "YWRtaW46czNjcmV0LVBhNTU="

    enum Source: CaseIterable, Sendable { case options, url }

    /// The session's URL and options with the credentials given one way or the other.
    static func connection(to url: String, giving source: Source) -> (url: String, options: RTSPSessionOptions) {
        var options = ScriptedServerTests.quick
        switch source {
        case .options:
            options.credentials = Credentials(user: user, password: password)
            return (url, options)
        case .url:
            return (url.replacingFirst("rtsp://", with: "rtsp://\(user):\(password)@"), options)
        }
    }

    /// A server that asks every request without an Authorization header for `challenge`, and answers the
    /// others normally.
    static func guarded(host: String = "127.0.0.1", challenge: String) async throws -> ScriptedServer {
        try await ScriptedServer(host: host) { request, connection in
            if request.header("Authorization") == nil {
                connection.respond(request, "401 Unauthorized", ["WWW-Authenticate: \(challenge)"])
            } else {
                connection.answerNormally(request)
                if request.method == "PLAY" { connection.sendRTP(count: 2) }
            }
        }
    }

    /// A server that asks for the credentials and then redirects DESCRIBE to `target`.
    static func redirecting(to target: String) async throws -> ScriptedServer {
        try await ScriptedServer { request, connection in
            if request.header("Authorization") == nil {
                connection.respond(request, "401 Unauthorized", ["WWW-Authenticate: Basic realm=\"cam\""])
            } else if request.method == "DESCRIBE" {
                connection.respond(request, "302 Moved Temporarily", ["Location: \(target)"])
            } else {
                connection.answerNormally(request)
            }
        }
    }

    /// Where the redirect leads: another host asking for Basic or Digest, or another port of the same host.
    static let targets = [
        ("127.0.0.2", "Basic realm=\"other\""), ("127.0.0.2", "Digest realm=\"other\", nonce=\"abc\""),
        ("127.0.0.1", "Basic realm=\"other\""),
    ]

    @Test(arguments: Source.allCases, targets)
    func credentialsAreNotSentToAnotherOriginARedirectNames(source: Source, target: (host: String, challenge: String))
        async throws
    {
        let other = try await Self.guarded(host: target.host, challenge: target.challenge)
        defer { Task { await other.stop() } }
        let origin = try await Self.redirecting(to: other.url)
        defer { Task { await origin.stop() } }
        var (url, options) = Self.connection(to: origin.url, giving: source)
        let log = CapturedLog()
        options.logger = log.logger()

        let error = await #expect(throws: RTSPClientError.self) {
            try await RTSPSession.connect(to: url, options: options)
        }
        // The log tells the redirect and that the credentials stayed behind, and holds none of them.
        #expect(log.lines(containing: "redirected to rtsp://\(target.host):\(other.port)").count == 1)
        #expect(log.lines(containing: "they are not sent there").count == 1)
        #expect(log.lines(containing: "401 Unauthorized").count == 1)
        log.expectNoCredentials(from: "the redirected session")
        // The first server had them (it asked), the other never did.
        #expect(origin.requests.contains { $0.header("Authorization") != nil })
        #expect(other.requests.count >= 1)
        #expect(other.requests.allSatisfy { $0.header("Authorization") == nil })
        #expect(error?.code == .unauthorized)
        // The error names the server that refused, not the camera the user named, and says why.
        #expect(error?.reason.contains("\(target.host):\(other.port)") == true)
        #expect(error?.reason.contains("not sent to another host") == true)
        #expect(error?.reason.contains(Self.password) == false)
        #expect(error?.reason.contains(Self.basicToken) == false)
        TestSecrets.expectNone(in: "\(String(describing: error))", from: "the redirected session's error")
    }

    @Test(arguments: Source.allCases)
    func credentialsFollowARedirectWithinTheirOrigin(source: Source) async throws {
        // One server: /stream redirects to /moved (absolute, with the host in another case), which plays.
        let server = try await ScriptedServer { request, connection in
            if request.header("Authorization") == nil {
                connection.respond(request, "401 Unauthorized", ["WWW-Authenticate: Basic realm=\"cam\""])
            } else if request.method == "DESCRIBE", case .request(_, let uri) = request.kind, uri.hasSuffix("/stream") {
                let port = connection.channel.localAddress?.port ?? 0
                connection.respond(request, "302 Moved Temporarily", ["Location: RTSP://LOCALHOST:\(port)/moved"])
            } else {
                connection.answerNormally(request)
                if request.method == "PLAY" { connection.sendRTP(count: 2) }
            }
        }
        defer { Task { await server.stop() } }
        // "localhost" and "LOCALHOST" are one origin: the redirect keeps the credentials.
        let start = server.url.replacingFirst("127.0.0.1", with: "localhost")
        let (url, options) = Self.connection(to: start, giving: source)

        let session = try await RTSPSession.connect(to: url, options: options)
        let (packets, _) = await ScriptedServerTests.drain(session, limit: 2)
        #expect(packets.count == 2)
        #expect(session.url.path == "/moved")
        await session.teardown()
        let afterRedirect = server.requests.drop { $0.method != "DESCRIBE" }.dropFirst(2)
        #expect(afterRedirect.contains { $0.header("Authorization") == "Basic \(Self.basicToken)" })
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        return self[..<range.lowerBound] + replacement + self[range.upperBound...]
    }
}
