import Foundation
import NIOConcurrencyHelpers
@_spi(SansIO) import RTSP
import RTSPClient
import TestSupport
import Testing

/// The tunnel's faults that gst-rtsp-server will not produce: a tunnel guarded by HTTP authentication
/// (Axis cameras ask for it on the GET), a port that does not tunnel, an answer that is not HTTP.
@Suite struct HTTPTunnelScriptedTests {
    static var options: RTSPSessionOptions {
        var options = ScriptedServerTests.quick
        options.transport = .http
        return options
    }

    static func streaming(_ request: RTSPMessage, _ connection: ScriptedServer.Connection) {
        connection.answerNormally(request)
        if request.method == "PLAY" { connection.sendRTP(count: 10) }
    }

    static let basic = "Basic " + Data("viewer:Tunn3lPass".utf8).base64EncodedString()

    /// A 401 on the GET is answered once with the session's credentials, and the POST carries them too;
    /// the RTSP requests inside come through, and the media with them.
    @Test func aTunnelGuardedByHTTPAuthenticationGetsTheCredentials() async throws {
        let server = try await ScriptedTunnelServer(
            answerGet: { headers in
                headers["authorization"] == Self.basic
                    ? nil : "HTTP/1.0 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"axis\""
            }, Self.streaming)
        defer { Task { await server.stop() } }
        var options = Self.options
        options.credentials = Credentials(user: "viewer", password: "Tunn3lPass")
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let (packets, _) = await ScriptedServerTests.drain(session, limit: 10)
        #expect(packets.count == 10)
        #expect(server.httpRequests.map(\.method) == ["GET", "GET", "POST"])
        #expect(server.httpRequests[1].headers["authorization"] == Self.basic)
        #expect(server.httpRequests[2].headers["authorization"] == Self.basic)
        #expect(server.httpRequests[1].headers["x-sessioncookie"] == server.httpRequests[2].headers["x-sessioncookie"])
        #expect(server.methods.prefix(4) == ["OPTIONS", "DESCRIBE", "SETUP", "PLAY"])
        #expect(await session.statistics().transport == .http)
    }

    /// A 302 inside the tunnel (to another path of the same server): a new tunnel, GET and POST, to the
    /// target, and the session plays there, as the same redirect does over TCP (it failed with "closed the
    /// RTSP connection before the session played").
    @Test func aRedirectInsideTheTunnelOpensATunnelToTheTarget() async throws {
        let played = NIOLockedValueBox<[String]>([])
        let server = try await ScriptedTunnelServer(answerGet: { _ in nil }) { request, connection in
            guard case .request(let method, let uri) = request.kind else { return }
            if method == "DESCRIBE", uri.hasSuffix("/stream") {
                let target = uri.replacingOccurrences(of: "/stream", with: "/moved")
                return connection.respond(request, "302 Found", ["Location: \(target)"])
            }
            if method == "PLAY" { played.withLockedValue { $0.append(uri) } }
            Self.streaming(request, connection)
        }
        defer { Task { await server.stop() } }
        let session = try await RTSPSession.connect(to: server.url, options: Self.options)
        let (packets, error) = await ScriptedServerTests.drain(session, limit: 10)
        #expect(packets.count == 10, "\(String(describing: error))")
        #expect(server.httpRequests.map(\.method) == ["GET", "POST", "GET", "POST"])
        #expect(played.withLockedValue { $0 }.allSatisfy { $0.hasSuffix("/moved") })
    }

    /// The POST refused (a server that takes the GET, then answers the POST 403 and keeps its connection):
    /// the session says so, where it waited for the OPTIONS answer and said "timeout".
    @Test func aRefusedPostSaysSo() async throws {
        let server = try await ScriptedTunnelServer(
            answerGet: { _ in nil }, answerPost: { _ in "HTTP/1.0 403 Forbidden" }, Self.streaming)
        defer { Task { await server.stop() } }
        let error = await #expect(throws: RTSPClientError.self) {
            try await RTSPSession.connect(to: server.url, options: Self.options)
        }
        #expect(error?.code == .serverError && error?.status == 403)
        #expect(error?.description.contains("tunnel's POST") == true, "\(String(describing: error))")
    }

    /// Without credentials, or with wrong ones: `.unauthorized`, naming the tunnel, never the password.
    @Test(arguments: [nil, Credentials(user: "viewer", password: "Wr0ngPass")])
    func aRefusedTunnelIsUnauthorized(credentials: Credentials?) async throws {
        let server = try await ScriptedTunnelServer(
            answerGet: { _ in
                "HTTP/1.0 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"axis\""
            }, Self.streaming)
        defer { Task { await server.stop() } }
        var options = Self.options
        options.credentials = credentials
        let error = await #expect(throws: RTSPClientError.self) {
            try await RTSPSession.connect(to: server.url, options: options)
        }
        #expect(error?.code == .unauthorized)
        #expect(error?.description.contains("tunnel's GET") == true)
        #expect(error?.description.contains("Wr0ngPass") == false)
        #expect(server.httpRequests.count == (credentials == nil ? 1 : 2))
    }

    /// A port that does not tunnel: its answer says what to try; an RTSP server that takes the GET for a
    /// request and answers in RTSP: the error says the answer is not HTTP.
    @Test(arguments: [
        ("HTTP/1.0 404 Not Found", RTSPClientError.Code.serverError, "may not tunnel RTSP over HTTP"),
        ("RTSP/1.0 400 Bad Request", .protocolViolation, "is not HTTP"),
    ])
    func aServerThatDoesNotTunnelSaysSo(answer: String, code: RTSPClientError.Code, words: String) async throws {
        let server = try await ScriptedTunnelServer(answerGet: { _ in answer }, Self.streaming)
        defer { Task { await server.stop() } }
        let error = await #expect(throws: RTSPClientError.self) {
            try await RTSPSession.connect(to: server.url, options: Self.options)
        }
        #expect(error?.code == code)
        #expect(error?.description.contains(words) == true, "\(String(describing: error))")
    }
}
