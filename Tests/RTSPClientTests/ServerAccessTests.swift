import Foundation
import H26x
import MediaPipeline
import RTSPClient
import RTSPServer
import SDP
import TestSupport
import Testing

/// Who may play what, on the public API: a server with two accounts and a rule of the application's. The one
/// allowed plays; the other, let in by its password, is refused with 403, as this library's client and FFmpeg say.
@Suite struct ServerAccessTests {
    static func server() async throws -> (RTSPServer, MediaSource, Int) {
        let source = try MediaSource(formats: [
            .video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1))
        ])
        var configuration = RTSPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.authentication = ServerAuthentication(users: [
            Credentials(user: "alice", password: "wonder"), Credentials(user: "bob", password: "builder"),
        ])
        configuration.access = { user, path in user == "alice" && path == "/front" }
        let server = RTSPServer(configuration: configuration)
        server.mount(source, at: "/front")
        try await server.start()
        return (server, source, try #require(server.port))
    }

    @Test func theAllowedAccountPlaysAndTheOtherIsRefusedWith403() async throws {
        let (server, source, port) = try await Self.server()
        let alice = try await RTSPSession.connect(to: "rtsp://alice:wonder@127.0.0.1:\(port)/front")
        let units = try alice.accessUnits()
        let pusher = Task {
            await source.waitForSubscriber()
            for index in 0..<10 { source.push(.video(RTSPServerTests.picture(index, size: 1200))) }
            source.finish()
        }
        var received = 0
        for try await _ in units { received += 1 }
        try await pusher.value
        #expect(received == 10)

        let refusal = await #expect(throws: RTSPClientError.self) {
            try await RTSPSession.connect(to: "rtsp://bob:builder@127.0.0.1:\(port)/front")
        }
        #expect(refusal?.code == .unauthorized && refusal?.status == 403)
        let said = refusal.map { "\($0)" } ?? ""
        #expect(said.contains("403") && said.contains("does not let this account play /front"), "\(said)")
        #expect(!said.contains("builder"))
        await server.stop()
    }

    /// FFmpeg, a player users have, reads the refusal as 403 Forbidden (not as a wrong password, which it would
    /// ask again for), for a mounted path and for one that is not: the rule answers before the lookup.
    @Test(arguments: ["/front", "/back"]) func ffmpegIsRefusedWith403(path: String) async throws {
        let (server, _, port) = try await Self.server()
        let run = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-rtsp_transport", "tcp", "-i", "rtsp://bob:builder@127.0.0.1:\(port)\(path)",
                "-frames:v", "1", "-f", "null", "-",
            ])
        #expect(run.status != 0)
        #expect(run.stderr.contains("403 Forbidden"), "\(run.stderr)")
        await server.stop()
    }
}
